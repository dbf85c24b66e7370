/* Unit tests for the resource kind table (services/lifecycle/reskind.h): one
 * row per kind, names unique and round-tripping, every driver kind owned by
 * the driver that records it (drivers/driver.h) and every kind a driver
 * records in the table, the engine rows complete, the teardown order. */
#include "services/lifecycle/reskind.h"
#include "drivers/driver.h"
#include "common/err.h"

#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

static void test_rows(void **state)
{
	for (int i = 0; i < SVC_RES_COUNT; i++) {
		const struct svc_res_kind_ops *k = svc_res_kind(i);

		print_message("kind %s\n", k->name);
		assert_int_equal(k->kind, i);
		assert_non_null(k->name);
		assert_int_equal(svc_res_kind_of(k->name), i);
		assert_ptr_equal(svc_res_kind_find(k->name), k);
		assert_string_equal(svc_res_kind_name(i), k->name);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(svc_res_kind(j)->name, k->name);
	}
	assert_int_equal(svc_res_kind_of("nope"), SVC_RES_UNKNOWN);
	assert_int_equal(svc_res_kind_of(NULL), SVC_RES_UNKNOWN);
	assert_null(svc_res_kind_find("containers"));
}

/* The table and the drivers agree both ways. */
static void test_driver_kinds(void **state)
{
	for (int i = 0; i < SVC_RES_COUNT; i++) {
		const struct svc_res_kind_ops *k = svc_res_kind(i);

		if (!k->driver) {
			assert_null(drv_for_kind(k->name));
			continue;
		}
		assert_non_null(drv_find(k->driver));
		assert_ptr_equal(drv_for_kind(k->name), drv_find(k->driver));
		assert_false(svc_res_kind_engine(i));
		assert_null(k->inspect);
		assert_null(k->remove);
	}
	for (size_t d = 0; d < DRV_COUNT; d++) {
		const struct drv_ops *ops = drv_at(d);
		bool primary = false;

		for (const char *const *kn = ops->kinds; *kn; kn++) {
			const struct svc_res_kind_ops *k = svc_res_kind_find(*kn);

			print_message("driver %s kind %s\n", ops->name, *kn);
			assert_non_null(k);
			assert_string_equal(k->driver, ops->name);
			primary |= strcmp(*kn, ops->primary_kind) == 0;
		}
		assert_true(primary);
	}
	assert_null(drv_at(DRV_COUNT));
}

/* Engine rows: found, removed; those listed by label say how to read a
 * list entry. Teardown order: containers, driver objects, the task's own
 * server containers they live on, networks, images, volumes. */
static void test_engine_rows(void **state)
{
	static const enum svc_res_kind order[] = {SVC_RES_CONTAINER, SVC_RES_POSTGRES_ROLE, SVC_RES_S3_SERVER,
						  SVC_RES_NETWORK,   SVC_RES_IMAGE,	    SVC_RES_VOLUME};

	for (int i = 0; i < SVC_RES_COUNT; i++) {
		const struct svc_res_kind_ops *k = svc_res_kind(i);

		if (k->driver) {
			assert_int_equal(k->down_order, svc_res_kind(SVC_RES_POSTGRES_ROLE)->down_order);
			continue;
		}
		if (svc_res_kind_process(i))
			continue; /* test_process_rows */
		assert_true(svc_res_kind_engine(i));
		assert_non_null(k->inspect);
		assert_non_null(k->remove);
		assert_int_equal(k->cred, SVC_CRED_NONE);
		if (k->list) {
			assert_non_null(k->entry_name);
			assert_non_null(k->entry_ref);
		}
	}
	for (size_t i = 1; i < sizeof(order) / sizeof(order[0]); i++)
		assert_true(svc_res_kind(order[i - 1])->down_order < svc_res_kind(order[i])->down_order);
	/* gc and verify look for unrecorded containers, networks and volumes. */
	assert_non_null(svc_res_kind(SVC_RES_CONTAINER)->list);
	assert_non_null(svc_res_kind(SVC_RES_NETWORK)->list);
	assert_non_null(svc_res_kind(SVC_RES_VOLUME)->list);
	assert_string_equal(svc_res_kind(SVC_RES_VOLUME)->entry_ref, "Name");
	assert_true(svc_res_kind(SVC_RES_VOLUME)->by_name);
	assert_true(svc_res_kind(SVC_RES_IMAGE)->by_name);
	assert_false(svc_res_kind(SVC_RES_CONTAINER)->by_name);
	/* A task's own server is a container the container list shows (gc,
	 * verify: recorded under another kind), with no list of its own. */
	assert_true(svc_res_kind_container("s3-server"));
	assert_true(svc_res_kind_container("container"));
	assert_false(svc_res_kind_container("network"));
	assert_null(svc_res_kind(SVC_RES_S3_SERVER)->list);
}

/* Rows the engine cannot be asked about fail without a call. */
/* A host process (the broker) is neither an engine object nor a driver's:
 * both of its hooks, none of theirs, and `ps` and `down` find it by kind. */
static void test_process_rows(void **state)
{
	int n = 0;

	for (int i = 0; i < SVC_RES_COUNT; i++) {
		const struct svc_res_kind_ops *k = svc_res_kind(i);

		if (!k->proc_stop && !k->proc_alive)
			continue;
		n++;
		assert_true(svc_res_kind_process(i));
		assert_false(svc_res_kind_engine(i));
		assert_non_null(k->proc_stop);
		assert_non_null(k->proc_alive);
		assert_null(k->driver);
		assert_null(k->inspect);
		assert_null(k->remove);
		assert_null(k->list);
		assert_false(k->proc_alive(NULL));
		assert_false(k->proc_alive("garbage"));
		assert_false(k->proc_alive("1:-5")); /* pid 1, not at that start time */
	}
	assert_int_equal(n, 1);
	assert_true(svc_res_kind_process(SVC_RES_BROKER));
	assert_string_equal(svc_res_kind_name(SVC_RES_BROKER), "broker");
}

static void test_inspect_refuses(void **state)
{
	struct te_err err = {0};
	struct cJSON *out = (struct cJSON *)&err; /* must be reset to NULL */

	assert_int_equal(svc_res_inspect(NULL, "postgres-role", "r1", NULL, &out, &err), -1);
	assert_null(out);
	assert_int_equal(err.code, TE_E_FAIL);
	assert_non_null(strstr(err.msg, "postgres-role 'r1' is not an engine object"));
	te_err_clear(&err);
	assert_int_equal(svc_res_inspect(NULL, "gadget", "g1", "id", &out, &err), -1);
	assert_non_null(strstr(err.msg, "unknown resource kind 'gadget' for 'g1'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows),
	    cmocka_unit_test(test_driver_kinds),
	    cmocka_unit_test(test_engine_rows),
	    cmocka_unit_test(test_process_rows),
	    cmocka_unit_test(test_inspect_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
