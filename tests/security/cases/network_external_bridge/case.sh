# the engine's default network as an external network
KEY=networks ALLOW=refused LINE=8 VERB=up CHECK_RC='0|1'
