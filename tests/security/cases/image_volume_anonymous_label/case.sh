# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the volume the engine makes for an image's VOLUME should carry the task's label, so that
# gc --orphans can attribute it after its ledger is lost. Not built: taskenv sends an
# anonymous volume as Config.Volumes, which the engine creates unlabelled (a labelled
# HostConfig.Mounts entry with VolumeOptions.Labels would do it, on both engines).
VERB=custom
case_run() {
	skip "not built yet: anonymous volumes (an image's VOLUME, a '- /path' entry) are created unlabelled by the engine; down --volumes removes them with their container (image_volume_anonymous)"
}
