# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# template: names another task's database on the same server (a clone of its data)
KEY=template ALLOW='template:|refused' LINE=7 VERB=up CHECK_RC='0|1'
case_setup() {
	drv_servers
	# shellcheck disable=SC2016 # interpolated by taskenv, not here
	victim_up 'x-taskenv:
  resources:
    db: {driver: postgres, server: "${PG_ADMIN_URL}", isolation: database}
services:
  v:
    image: taskenv-test/busybox:1
    command: ["sleep", "600"]
    stop_grace_period: 1s
    x-taskenv:
      env: {DATABASE_URL: db.url}'
	local vdb
	vdb=$(te env -t "$VICTIM" | sed -n 's/^TASKENV_DB_DATABASE=//p')
	[ -n "$vdb" ] || fail "no database of the victim"
	# shellcheck disable=SC2016 # dollar quoting of SQL
	psql -X -q "$(te env -t "$VICTIM" | sed -n 's/^TASKENV_DB_URL=//p')" -c 'create table loot(x text); insert into loot values ($$secret$$)'
	subst VDB "$vdb"
}
