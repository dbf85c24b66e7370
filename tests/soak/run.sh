#!/usr/bin/env bash
# Long tests, outside the default suite: run.sh docker|podman PATH/TO/taskenv [NAMES]
#   scale_64  64 tasks of a two-service file up at once (8 at a time), then down
#   churn     random up / killed up / down / gc on several tasks from several
#             workers at once, bounded by SOAK_OPS (default 200) and SOAK_SECS
#             (default 300); then nothing may be left
# Uses the integration harness (private engine, images, leak check).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export TE_EXTRA_TESTS=$HERE
export TE_ONLY=${3:-"scale_64 churn"}
exec "$HERE/../integration/run.sh" "$1" "$2"
