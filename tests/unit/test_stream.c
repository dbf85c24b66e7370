/* engine/stream.c: the incremental demultiplexer of the Engine's stream
 * framing, fed whole, byte by byte and in odd splits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/buf.h"
#include "engine/stream.h"

struct sink {
	struct te_buf out[3];
	int calls;
	int stop_after; /* 0: never */
};

static int collect(void *ctx, int stream, const char *p, size_t n)
{
	struct sink *s = ctx;

	s->calls++;
	te_buf_add(&s->out[stream], p, n);
	return s->stop_after && s->calls >= s->stop_after ? -1 : 0;
}

static size_t frame(unsigned char *dst, int stream, const char *payload)
{
	size_t n = strlen(payload);

	dst[0] = (unsigned char)stream;
	dst[1] = dst[2] = dst[3] = 0;
	dst[4] = (unsigned char)(n >> 24);
	dst[5] = (unsigned char)(n >> 16);
	dst[6] = (unsigned char)(n >> 8);
	dst[7] = (unsigned char)n;
	memcpy(dst + 8, payload, n);
	return 8 + n;
}

static size_t sample(unsigned char *b)
{
	size_t n = 0;

	n += frame(b + n, 1, "hello\n");
	n += frame(b + n, 2, "oops\n");
	n += frame(b + n, 1, "");
	n += frame(b + n, 1, "world\n");
	return n;
}

static void check(struct sink *s)
{
	assert_string_equal(s->out[1].data, "hello\nworld\n");
	assert_string_equal(s->out[2].data, "oops\n");
	for (int k = 0; k < 3; k++)
		te_buf_release(&s->out[k]);
}

static void test_demux_splits(void **state)
{
	unsigned char b[256];
	size_t n = sample(b);
	size_t steps[] = {n, 1, 3, 7, 9, 13};

	for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		struct sink s = {0};
		struct engine_demux d;

		for (int i = 0; i < 3; i++)
			te_buf_init(&s.out[i], 0);
		engine_demux_init(&d, collect, &s);
		for (size_t off = 0; off < n; off += steps[k]) {
			size_t len = n - off < steps[k] ? n - off : steps[k];

			assert_int_equal(engine_demux_feed(&d, (const char *)b + off, len), 0);
		}
		check(&s);
	}
}

static void test_demux_raw_tty(void **state)
{
	struct sink s = {0};
	struct engine_demux d;

	engine_demux_init(&d, collect, &s);
	assert_int_equal(engine_demux_feed(&d, "plain tty ", 10), 0);
	assert_int_equal(engine_demux_feed(&d, "\x01\x00 text", 7), 0);
	assert_int_equal(s.out[1].len, 17);
	assert_int_equal(s.out[2].len, 0);
	te_buf_release(&s.out[1]);
}

static void test_demux_stop(void **state)
{
	unsigned char b[256];
	size_t n = sample(b);
	struct sink s = {.stop_after = 1};
	struct engine_demux d;

	engine_demux_init(&d, collect, &s);
	assert_int_equal(engine_demux_feed(&d, (const char *)b, n), -1);
	assert_int_equal(s.calls, 1);
	for (int k = 0; k < 3; k++)
		te_buf_release(&s.out[k]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_demux_splits),
	    cmocka_unit_test(test_demux_raw_tty),
	    cmocka_unit_test(test_demux_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
