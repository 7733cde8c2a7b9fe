#!/usr/bin/env bash
# sweep-slurm.sh: scripts/sweep on a Slurm cluster: a job array runs the combinations (scripts/sweep
# --run-index), a job that waits for it merges their results into the CSV (scripts/sweep --merge).
#
# Usage: scripts/sweep-slurm.sh -o OUT.csv --results-dir DIR [--per-task K] [--dry-run]
#                               [sweep lists: --platforms ... --variant ...] [-- stash-sim options]
#   -o OUT.csv         the CSV the merge job writes
#   --results-dir DIR  where each run leaves stdout, stderr and exit status (DIR/INDEX/), and where
#                      the two job scripts and the Slurm logs go; on a file system the compute
#                      nodes share with this one
#   --per-task K       combinations per array task (default: as many as keep the array within
#                      1000 tasks, Slurm's default MaxArraySize is 1001)
#   --dry-run          write the job scripts and print the sbatch commands, submit nothing
#   -h, --help         this help; --version: the version
#   SBATCH_ARGS        environment: more sbatch options for both jobs, e.g.
#                      SBATCH_ARGS="--partition=short --time=00:20:00 --cpus-per-task=1"
# The lists and stash-sim options are scripts/sweep's, passed as they are to every step, so the
# array task I runs exactly combination I of `scripts/sweep --list ...`. The jobs run in the
# current directory: the stash-sim binary (--bin, default build/stash-sim) and the input files
# must be there, at the same paths, on the compute nodes.
# Exit status: 0 when both jobs are submitted, 2 on a usage error, else sbatch's.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sweep="$here/sweep"
die() { echo "sweep-slurm.sh: error: $*" >&2; exit 2; }

# No argument may hold a control character: the job scripts are written with the values in them
# (quoted with printf %q, or on an #SBATCH line that a newline would end and turn into a command).
for a in "$@"; do
  case "$a" in
    *[[:cntrl:]]*) die "a control character in the argument $(printf '%q' "$a"): values may not hold newlines, tabs or other control characters" ;;
  esac
done
out="" results="" per_task="" dry=0 pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    -o|--output) [ $# -ge 2 ] || die "option '$1' needs a value"; out=$2; shift 2 ;;
    --results-dir) [ $# -ge 2 ] || die "option '$1' needs a value"; results=$2; shift 2 ;;
    --per-task) [ $# -ge 2 ] || die "option '$1' needs a value"; per_task=$2; shift 2 ;;
    --dry-run) dry=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --version) echo "scripts/sweep-slurm.sh (stash-sim) $(cat "$here/../VERSION")"; exit 0 ;;
    --) pass+=("$@"); break ;;
    # scripts/sweep's options with a value: the value may start with '-' (--variant --synthetic).
    --platforms|--instances|--gpus|--workloads|--batches|--variant|--bin)
      [ $# -ge 2 ] || die "option '$1' needs a value"; pass+=("$1" "$2"); shift 2 ;;
    --list|--merge|--run-index*|--sshloginfile*|-j*|--jobs*|--strict)
      die "'$1' is for scripts/sweep itself, not for a Slurm sweep" ;;
    *) pass+=("$1"); shift ;;
  esac
done
[ -n "$out" ] || die "missing -o OUT.csv"
[ -n "$results" ] || die "missing --results-dir DIR"
[ -z "$per_task" ] || [[ "$per_task" =~ ^[1-9][0-9]*$ ]] || die "--per-task: expected a positive integer, got '$per_task'"

# The expansion is scripts/sweep's: its --list validates the arguments and counts the runs.
list=$("$sweep" --list "${pass[@]}") || exit $?
n=$(printf '%s\n' "$list" | grep -c .)
[ -n "$per_task" ] || per_task=$(( (n + 999) / 1000 ))
tasks=$(( (n + per_task - 1) / per_task ))
mkdir -p "$results"
workdir=$(pwd)
args=$(printf ' %q' "${pass[@]}")

cat > "$results/slurm-array.sh" <<EOF
#!/bin/bash
#SBATCH --job-name=stash-sweep
#SBATCH --output=$results/slurm-%A_%a.out
# Array task T runs combinations (T-1)*$per_task+1 .. T*$per_task (at most $n) of the sweep.
set -u
cd $(printf '%q' "$workdir")
first=\$(( (SLURM_ARRAY_TASK_ID - 1) * $per_task + 1 ))
last=\$(( first + $per_task - 1 ))
[ "\$last" -le $n ] || last=$n
for ((i = first; i <= last; i++)); do
  $(printf '%q' "$sweep") --run-index "\$i" --results-dir $(printf '%q' "$results")$args || exit \$?
done
EOF
cat > "$results/slurm-merge.sh" <<EOF
#!/bin/bash
#SBATCH --job-name=stash-sweep-merge
#SBATCH --output=$results/slurm-merge-%j.out
# Runs after every array task ended (afterany): a task that died leaves an error row.
set -u
cd $(printf '%q' "$workdir")
exec $(printf '%q' "$sweep") --merge --results-dir $(printf '%q' "$results") -o $(printf '%q' "$out")$args
EOF

# More sbatch options, split at blanks, never globbed nor evaluated.
read -r -a extra <<<"${SBATCH_ARGS:-}"
if [ "$dry" = 1 ]; then
  echo "sbatch --parsable --array=1-$tasks ${extra[*]} $results/slurm-array.sh"
  echo "sbatch --parsable --dependency=afterany:ARRAY_JOB_ID ${extra[*]} $results/slurm-merge.sh"
  echo "sweep-slurm.sh: $n runs in $tasks array tasks (dry run: nothing submitted)" >&2
  exit 0
fi
command -v sbatch >/dev/null || die "sbatch not found (not on a Slurm cluster? try --dry-run)"
array_id=$(sbatch --parsable --array="1-$tasks" "${extra[@]}" "$results/slurm-array.sh")
array_id=${array_id%%;*}
merge_id=$(sbatch --parsable --dependency="afterany:$array_id" "${extra[@]}" "$results/slurm-merge.sh")
merge_id=${merge_id%%;*}
echo "sweep-slurm.sh: $n runs in $tasks array tasks, job $array_id; job $merge_id writes $out" >&2
