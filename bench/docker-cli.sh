#!/usr/bin/env bash
# The raw docker CLI doing what `up`/`down` of the seed shape do (bench/compare.sh):
#   docker-cli.sh up|down FILE PROJECT
# Reads the services from FILE with a tiny fixed mapping: the seed file (app +
# database with a volume) or the busybox pair file (web + worker).
set -euo pipefail
verb=$1 file=$2 p=$3
L=(--label "com.docker.compose.project=$p" --label "io.taskenv.bench=$p")
if grep -q taskenv-example/postgres "$file"; then
	svcs="database app"
else
	svcs="web worker"
fi
case $verb in
up)
	docker network create "${L[@]}" "${p}_default" >/dev/null
	if [ "$svcs" = "database app" ]; then
		docker volume create "${L[@]}" "${p}_dbdata" >/dev/null
		docker run -d "${L[@]}" --name "$p-database-1" --network "${p}_default" --network-alias database \
			-e POSTGRES_PASSWORD=example -v "${p}_dbdata:/var/lib/postgresql/data" \
			-p 127.0.0.1::5432 taskenv-example/postgres:15 >/dev/null
		docker run -d "${L[@]}" --name "$p-app-1" --network "${p}_default" --network-alias app \
			-e DATABASE_HOST=database -e TASK=agent-pair -p 127.0.0.1::3000 taskenv-example/app:1 >/dev/null
	else
		docker run -d "${L[@]}" --name "$p-web-1" --network "${p}_default" --network-alias web \
			-p 127.0.0.1::8080 taskenv-test/busybox:1 httpd -f -p 8080 -h / >/dev/null
		docker run -d "${L[@]}" --name "$p-worker-1" --network "${p}_default" --network-alias worker \
			taskenv-test/busybox:1 sleep 3600 >/dev/null
	fi
	;;
down)
	t=1
	for s in $svcs; do docker stop -t "$t" "$p-$s-1" >/dev/null; done
	for s in $svcs; do docker rm -v "$p-$s-1" >/dev/null; done
	docker network rm "${p}_default" >/dev/null
	if [ "$svcs" = "database app" ]; then docker volume rm "${p}_dbdata" >/dev/null; fi
	;;
esac
