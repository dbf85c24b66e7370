# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# benign: a credential-looking variable from the project's .env is no host credential
VERB=benign
case_after() { sec_inspect "$SEC_TASK" a | jq -e '.Config.Env | index("API_TOKEN=from-the-projects-dotenv")' >/dev/null || fail 'API_TOKEN not passed'; }
