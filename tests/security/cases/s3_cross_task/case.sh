# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# two tasks with S3 resources (shared-server mode): from inside A's container, through
# every S3 endpoint it may reach, with its own keys and the emulator's default keys,
# B's bucket is neither listed nor read
VERB=custom
case_run() {
	local vep vak vsk vb eps ep creds out
	victim_up "$(cat "$SEC_DIR/compose.yaml")"
	sec_ok up -t "$SEC_TASK"
	vep=$(te env -t "$VICTIM" | sed -n 's/^TASKENV_UPLOADS_ENDPOINT=//p')
	vak=$(te env -t "$VICTIM" | sed -n 's/^TASKENV_UPLOADS_ACCESS_KEY=//p')
	vsk=$(te env -t "$VICTIM" | sed -n 's/^TASKENV_UPLOADS_SECRET_KEY=//p')
	vb=$(te env -t "$VICTIM" | sed -n 's/^TASKENV_UPLOADS_BUCKET_FILES=//p')
	[ -n "$vb" ] || fail "no bucket of the victim"
	echo victim-secret >"$SEC_BASE/obj"
	assert_eq "$(curl -sS --aws-sigv4 aws:amz:us-east-1:s3 --user "$vak:$vsk" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
		-o /dev/null -w '%{http_code}' -T "$SEC_BASE/obj" "$vep/$vb/secret")" 200 "(the victim's own PUT)"
	# A's endpoint, and every S3 emulator's address on the engine (port 4568)
	eps=$(docker -H "unix://$SOCK" exec "$SEC_TASK-app-1" sh -c 'echo "$S3_ENDPOINT"')
	for c in $(api GET '/containers/json' | jq -r '.[] | select(.Image | test("s3rver")) | .Id'); do
		eps="$eps $(api GET "/containers/$c/json" | jq -r '.NetworkSettings.Networks[].IPAddress | select(. != "") | "http://\(.):4568"' | tr '\n' ' ')"
	done
	log "    endpoints tried from inside $SEC_TASK-app-1: $eps"
	for ep in $eps; do
		for creds in A S3RVER:S3RVER; do
			out=$(docker -H "unix://$SOCK" exec -e EP="$ep" -e C="$creds" -e VB="$vb" "$SEC_TASK-app-1" sh -c '
				[ "$C" = A ] && C="$S3_AK:$S3_SK"
				s3() { curl -s -m 3 --aws-sigv4 aws:amz:us-east-1:s3 --user "$C" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"; }
				echo "list: $(s3 "$EP/")"
				echo "get: $(s3 "$EP/$VB/secret")"' 2>&1) || true
			assert_not_contains "$out" "<Name>$vb</Name>" "(ListBuckets at $ep with $creds)"
			assert_not_contains "$out" "victim-secret" "(GET of B's object at $ep with $creds)"
		done
	done
}
