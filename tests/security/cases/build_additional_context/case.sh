# an additional build context of the host's /etc
KEY='build|additional_contexts' ALLOW=. LINE=8
case_setup() { printf 'FROM taskenv-test/busybox:1\n' >Dockerfile; }
