#!/bin/bash
# auditpacks on SLURM: a job array runs the shards, a dependent job merges them.
#
#   bash deploy/slurm-array.sh submit deploy/settings.env   # the servers (SERVERS > 0), the array 1-SHARDS, the merge
#   bash deploy/slurm-array.sh rerun deploy/settings.env    # the shards that did not finish, and a new merge
#   auditpacks status $SHARED/runs/shard-*                  # every shard's progress, while they run
#
# Type `bash`, not `sbatch`: this script submits the jobs itself, and refuses to do so inside a
# job. The settings (pack, model, endpoints, shards, further run flags) are one file, copied at
# submit to $SHARED/runs/settings.env; the shards, the merge and every rerun read that copy.
# SHARED must be a file system every node sees (NFS, Lustre, ...). Shard i writes
# $SHARED/runs/shard-i and resumes from its journal when it starts again (rerun, --requeue).
# A shard whose scenarios ended in ERROR still succeeds (the merge reports them); only bad
# input or a crash fails it. With SERVERS > 0, submit first starts that many inference servers
# (SERVER=vllm or llamacpp serving MODEL as TARGET, one array task each); each writes its own
# URL (its node's name) into ENDPOINTS while it runs, the shards start once every server has
# started and wait for them to be ready (--wait-ready in RUN_FLAGS), and the merge stops them.
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=24:00:00
#SBATCH --requeue
set -euo pipefail

SETTING_KEYS=" SHARDS SHARED PACK TARGET PROVIDER ENDPOINTS CONCURRENCY RUN_FLAGS AUDITPACKS JOB_NAME"
SETTING_KEYS+=" SERVERS SERVER MODEL SERVER_PORT SERVER_FLAGS SERVER_SBATCH "
EXIT_INCOMPLETE=3  # auditpacks run: finished, with ERROR scenarios (or nothing selected): the merge reports it

die() { echo "slurm-array.sh: $*" >&2; exit 2; }

read_settings() {  # KEY=VALUE lines, each value taken literally (as kubectl create configmap --from-env-file)
  local file=$1 line key number=0
  [ -f "$file" ] && [ -r "$file" ] || die "$file: cannot read the settings file"
  SHARDS= SHARED= PACK= TARGET= PROVIDER= ENDPOINTS= CONCURRENCY= RUN_FLAGS= AUDITPACKS=auditpacks JOB_NAME=auditpacks
  SERVERS=0 SERVER=vllm MODEL= SERVER_PORT=8000 SERVER_FLAGS= SERVER_SBATCH=
  while IFS= read -r line || [ -n "$line" ]; do
    number=$((number + 1))
    case "$line" in '' | '#'*) continue ;; esac
    key=${line%%=*}
    [[ "$line" == *=* && "$SETTING_KEYS" == *" $key "* ]] ||
      die "$file: line $number: not one of the settings (KEY=VALUE, KEY one of$SETTING_KEYS)"
    printf -v "$key" '%s' "${line#*=}"
  done < "$file"
  [[ "$SHARDS" =~ ^[1-9][0-9]*$ ]] || die "$file: SHARDS must be a whole number of at least 1, got '$SHARDS'"
  [ -n "$SHARED" ] && [ -n "$PACK" ] || die "$file: SHARED and PACK must be set"
  [[ "$SERVERS" =~ ^[0-9]+$ ]] || die "$file: SERVERS must be a whole number, got '$SERVERS'"
  if [ "$SERVERS" -gt 0 ] && { [ -z "$MODEL" ] || [ -z "$ENDPOINTS" ]; }; then
    die "$file: SERVERS > 0 needs MODEL (the weights to serve) and ENDPOINTS (where their URLs go)"
  fi
  RUNS=$SHARED/runs
}

outside_job() {  # submitting from inside a job would queue copies of the whole pipeline
  [ -z "${SLURM_JOB_ID:-}" ] ||
    die "$STEP submits jobs: run it with bash on a login node, not with sbatch or inside job $SLURM_JOB_ID"
}

finished() {  # shard $1 wrote a run file no older than its journal
  local run
  for run in "$RUNS/shard-$1"/*.run.json; do
    if [ -f "$run" ] && ! [ "${run%.run.json}.journal.jsonl" -nt "$run" ]; then return 0; fi
  done
  return 1
}

submit_merge() {  # $1: the afterok dependency list (empty: none)
  local dependency=()
  [ -z "$1" ] || dependency=(--dependency="afterok:$1")
  sbatch --parsable "${dependency[@]}" --job-name="$JOB_NAME-merge" --output="$RUNS/logs/merge-%j.log" \
    --export=ALL "$0" merge "$RUNS/settings.env"
}

submit_shards() {  # $1: the array's task list, $2: a dependency (or empty); prints the array's job id
  sbatch --parsable --array="$1" ${2:+--dependency="$2"} --job-name="$JOB_NAME-shards" \
    --output="$RUNS/logs/shard-%a-%A.log" --export=ALL "$0" run "$RUNS/settings.env"
}

submit_servers() {  # prints the server array's job id
  local flags
  read -r -a flags <<<"$SERVER_SBATCH"
  sbatch --parsable --array="1-$SERVERS" --job-name="$JOB_NAME-servers" --output="$RUNS/logs/server-%a-%A.log" \
    "${flags[@]}" --export=ALL "$0" serve "$RUNS/settings.env"
}

write_endpoints() {  # ENDPOINTS: the URLs of the servers running now, rewritten whole under a lock
  flock "$RUNS/endpoints.d/.lock" sh -c 'cat "$1"/endpoints.d/server-* > "$2.new" 2>/dev/null; mv "$2.new" "$2"' \
    sh "$RUNS" "$ENDPOINTS"
}

STEP=${1:-}
case "$STEP" in
  submit)
    outside_job
    read_settings "${2:?usage: bash $0 submit SETTINGS_FILE}"
    mkdir -p "$RUNS/logs"
    if [ -f "$RUNS/settings.env" ] && ! cmp -s "$2" "$RUNS/settings.env"; then
      die "$RUNS/settings.env: a run with other settings is there; rerun it (bash $0 rerun $2) or set another SHARED"
    fi
    cp "$2" "$RUNS/settings.env"
    after=
    if [ "$SERVERS" -gt 0 ]; then
      servers=$(submit_servers)
      after="after:$servers"
      echo "submitted $SERVERS inference server(s) as job $servers"
    fi
    array=$(submit_shards "1-$SHARDS" "$after")
    merge=$(submit_merge "$array")
    echo "submitted shards 1-$SHARDS as job $array and the merge as job $merge (after every shard succeeded)"
    ;;
  rerun)
    outside_job
    read_settings "${2:?usage: bash $0 rerun SETTINGS_FILE}"
    read_settings "$RUNS/settings.env"  # the settings the run was submitted with
    scancel --name="$JOB_NAME-merge" --state=PENDING  # a merge waiting on a shard that failed never starts
    queued=$(squeue --noheader --array --states=PENDING,CONFIGURING,RUNNING,REQUEUED,SUSPENDED \
      --name="$JOB_NAME-shards" --format='%K %i') || die "squeue failed"
    again=() waits=()
    for ((i = 1; i <= SHARDS; i++)); do
      job=$(awk -v i="$i" '$1 == i { print $2; exit }' <<<"$queued")
      if [ -n "$job" ]; then waits+=("$job")
      elif ! finished "$i"; then again+=("$i"); fi
    done
    if [ ${#again[@]} -gt 0 ]; then
      list=$(IFS=,; echo "${again[*]}")
      waits+=("$(submit_shards "$list" "")")
      echo "resubmitted shards $list as job ${waits[-1]}"
    fi
    merge=$(submit_merge "$(IFS=:; echo "${waits[*]}")")
    echo "submitted the merge as job $merge (after ${waits[*]:-nothing: every shard has finished})"
    ;;
  run)
    read_settings "${2:?usage: sbatch $0 run SETTINGS_FILE}"
    i=${SLURM_ARRAY_TASK_ID:?run is an array task: submit it with bash $0 submit}
    args=(run --pack "$PACK" --shard "$i/$SHARDS" --out "$RUNS/shard-$i"
          --concurrency "${CONCURRENCY:-${SLURM_CPUS_PER_TASK:-2}}")
    [ -z "$TARGET" ] || args+=(--target "$TARGET")
    [ -z "$PROVIDER" ] || args+=(--provider "$PROVIDER")
    [ -z "$ENDPOINTS" ] || args+=(--endpoints "$ENDPOINTS")
    read -r -a flags <<<"$RUN_FLAGS"
    status=0
    "$AUDITPACKS" "${args[@]}" "${flags[@]}" || status=$?
    if [ "$status" -eq "$EXIT_INCOMPLETE" ]; then
      echo "shard $i/$SHARDS finished with ERROR scenarios; the merge reports them"
      exit 0
    fi
    exit "$status"
    ;;
  merge)
    read_settings "${2:?usage: sbatch $0 merge SETTINGS_FILE}"
    shards=()
    for ((i = 1; i <= SHARDS; i++)); do shards+=("$RUNS/shard-$i"); done
    status=0
    "$AUDITPACKS" merge "${shards[@]}" --pack "$PACK" --out "$RUNS/merged" || status=$?
    [ "$SERVERS" -eq 0 ] || scancel --name="$JOB_NAME-servers"  # the shards are done with them
    exit "$status"
    ;;
  serve)
    read_settings "${2:?usage: sbatch $0 serve SETTINGS_FILE}"
    i=${SLURM_ARRAY_TASK_ID:?serve is an array task: submit it with bash $0 submit}
    mkdir -p "$RUNS/endpoints.d"
    echo "http://$(hostname -f):$SERVER_PORT/v1" > "$RUNS/endpoints.d/server-$i"
    write_endpoints
    trap 'rm -f "$RUNS/endpoints.d/server-$i"; write_endpoints' EXIT
    trap 'exit 143' TERM
    read -r -a flags <<<"$SERVER_FLAGS"
    case "$SERVER" in
      vllm) vllm serve "$MODEL" --served-model-name "$TARGET" --host 0.0.0.0 --port "$SERVER_PORT" "${flags[@]}" ;;
      llamacpp) llama-server --model "$MODEL" --alias "$TARGET" --host 0.0.0.0 --port "$SERVER_PORT" "${flags[@]}" ;;
      *) die "SERVER must be vllm or llamacpp, got '$SERVER'" ;;
    esac
    ;;
  *) die "usage: bash $0 submit|rerun SETTINGS_FILE   (the jobs it submits run: $0 serve|run|merge SETTINGS_FILE)" ;;
esac
