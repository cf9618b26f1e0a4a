#!/bin/bash
# auditpacks on SLURM: a job array runs the shards, a dependent job merges them.
#
#   bash deploy/slurm-array.sh               # on the login node: submits the array and the merge (afterok)
#
# Edit the settings below. SHARED must be a file system every node sees (NFS, Lustre, ...):
# the pack is read from it and shard i writes $SHARED/runs/shard-i. A shard that fails or
# is requeued resumes from its journal; `sbatch --array=3 deploy/slurm-array.sh run` reruns
# shard 3 alone (then `sbatch --array=0 deploy/slurm-array.sh merge`). Every shard must use the same endpoint strings (part of the fingerprint).
#SBATCH --job-name=auditpacks
#SBATCH --array=1-8
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=24:00:00
#SBATCH --requeue
#SBATCH --output=auditpacks-%A_%a.log
set -euo pipefail

SHARDS=${SHARDS:-8}                       # the array is 1..SHARDS
SHARED=${SHARED:-/shared/auditpacks}
PACK=${PACK:-$SHARED/packs/iustitia_marigonae.json}
TARGET=${TARGET:-qwen3:8b}
PROVIDER=${PROVIDER:-vllm}
ENDPOINTS=${ENDPOINTS:-$SHARED/endpoints.txt}  # one base URL a line: the replicas every shard shares
STEP=${1:-submit}

case "$STEP" in
  submit)  # run with bash, not sbatch: the array, then the merge once every task succeeded
    array=$(sbatch --parsable --array="1-${SHARDS}" --export=ALL "$0" run)
    sbatch --dependency="afterok:${array}" --array=0 --job-name=auditpacks-merge --export=ALL "$0" merge
    ;;
  run)
    exec auditpacks run --pack "$PACK" --target "$TARGET" --provider "$PROVIDER" --endpoints "$ENDPOINTS" \
      --concurrency "${SLURM_CPUS_PER_TASK:-2}" --shard "${SLURM_ARRAY_TASK_ID}/${SHARDS}" \
      --out "$SHARED/runs/shard-${SLURM_ARRAY_TASK_ID}" --quiet
    ;;
  merge)
    exec auditpacks merge "$SHARED"/runs/shard-* --pack "$PACK" --out "$SHARED/runs/merged"
    ;;
  *) echo "usage: bash $0 [submit]   (sbatch $0 run|merge is what it submits)" >&2; exit 2 ;;
esac
