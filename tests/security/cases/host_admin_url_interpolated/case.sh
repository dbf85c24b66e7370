# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the shared server's admin URL (docs/drivers.md: server: "${PG_ADMIN_URL}") interpolated into a
# container: its name looks like no credential, its value carries one (user:password@)
KEY=environment ALLOW=host-credentials LINE='6|7'
export PG_ADMIN_URL=postgres://taskenv_admin:sectests-not-a-real-pw@127.0.0.1:5432/postgres
