#!/bin/sh
# Wait for a Kubernetes Job to end: exit 0 once it is Complete, 1 once it has Failed, 2 after the
# time-out (`kubectl wait --for=condition=complete` alone waits for ever on a Job that failed).
#
#   deploy/k8s-wait.sh job/auditpacks-shards [TIMEOUT_SECONDS, default 48 h] [POLL_SECONDS, default 10]
set -eu
job=${1:?usage: deploy/k8s-wait.sh job/NAME [TIMEOUT_SECONDS] [POLL_SECONDS]}
timeout=${2:-172800}
poll=${3:-10}
waited=0
while :; do
  state=$(kubectl get "$job" -o 'jsonpath={.status.conditions[?(@.status=="True")].type}')
  case " $state " in
    *" Complete "*) echo "$job: complete"; exit 0 ;;
    *" Failed "*)
      echo "$job: failed (failed indexes: $(kubectl get "$job" -o 'jsonpath={.status.failedIndexes}'))" >&2
      exit 1 ;;
  esac
  if [ "$waited" -ge "$timeout" ]; then echo "$job: not done after $timeout s" >&2; exit 2; fi
  sleep "$poll"
  waited=$((waited + poll))
done
