# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# an image's VOLUME makes the engine create a volume implicitly: down --volumes removes it
# (its label: image_volume_anonymous_label)
VERB=custom
case_setup() { printf 'FROM taskenv-test/busybox:1\nVOLUME /data\n' >Dockerfile; }
case_run() {
	local before v new
	before=$(api GET /volumes | jq -r '(.Volumes // [])[].Name' | sort)
	sec_ok up -t "$SEC_TASK"
	new=$(comm -13 <(echo "$before") <(api GET /volumes | jq -r '(.Volumes // [])[].Name' | sort))
	[ -n "$new" ] || fail "no volume for the image's VOLUME /data"
	te down -t "$SEC_TASK" --volumes --rmi all --timeout 1 >/dev/null
	for v in $new; do
		assert_eq "$(api GET "/volumes/$v" | jq -r '.Name // "absent"')" absent "(volume $v after down --volumes)"
	done
}
