# a build context that is a symlink pointing outside
KEY='build|context' ALLOW=. LINE=7
case_setup() { ln -s "$SEC_BASE/outside" ctx; }
