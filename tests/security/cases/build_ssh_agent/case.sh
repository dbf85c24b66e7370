# the host's SSH agent forwarded into a build
KEY='build|ssh' ALLOW=. LINE=8
export SSH_AUTH_SOCK=/tmp/sectests-no-agent.sock
case_setup() { printf 'FROM taskenv-test/busybox:1\n' >Dockerfile; }
