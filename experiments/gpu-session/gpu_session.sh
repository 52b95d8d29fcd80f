#!/usr/bin/env bash
# One GPU lease's work for issues 39 and 41, in one command that ends within ~9 minutes:
#   - the CUDA tests (pytest -m cuda),
#   - two supervised runs side by side on the one GPU (experiments/gpu-session/supervised-gpu-long.toml,
#     resnet-b10c128 toward 0.64; experiments/b8c64-all/supervised-gpu-b8c64.toml, the network a CPU can
#     search with), each stopped by --time-limit if it runs long (it resumes later),
#   - their top-1/top-3 on WTHOR 2023 (never trained on),
#   - 8x8 self-play positions/s with the network evaluated on the GPU and on the CPU.
# Run from the repository root on a machine with a GPU:
#   OUT=runs/gpu-session bash experiments/gpu-session/gpu_session.sh [DATA_FOLDER]
# DATA_FOLDER (default ../shared/data) holds wthor/. SMOKE=1 shrinks every limit (a CPU check of
# the script itself). Outputs go to $OUT: logs.tar.gz and one tar per trained run.
set -u
OUT=${OUT:-runs/gpu-session}
DATA=$(realpath "${1:-../shared/data}" 2>/dev/null)
[ -d "$DATA/wthor" ] || { echo "${1:-../shared/data}: no wthor/ folder there" >&2; exit 2; }
PY=${PYTHON:-python3}
SMOKE=${SMOKE:-0}
LIMIT=${LIMIT:-330}          # seconds of training per supervised run
TESTS=${TESTS:-330}          # seconds for the CUDA tests
SP=${SP:-200}                # seconds for each self-play measurement
DEV=cuda
for v in LIMIT TESTS SP; do
  case ${!v} in ''|*[!0-9]*) echo "$v=${!v}: give a whole number of seconds" >&2; exit 2;; esac
  [ "${!v}" -ge 1 ] && [ "${!v}" -le 3600 ] || { echo "$v=${!v}: give 1 to 3600 seconds" >&2; exit 2; }
done
if [ "$SMOKE" = 1 ]; then LIMIT=10; TESTS=60; SP=150; DEV=cpu; fi
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 OTHELLOLAB_DATA=$DATA
W=$(mktemp -d /tmp/gpu-session.XXXX)
L=$W/logs
mkdir -p "$OUT" "$L"
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a "$L/timeline.txt"; }

{ nvidia-smi; $PY -c "import torch, numba, numpy; print('torch', torch.__version__, 'cuda',
torch.version.cuda, 'gpu', torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
'numba', numba.__version__, 'numpy', numpy.__version__)"; nproc; } > "$L/machine.txt" 2>&1
stamp "machine: $(tail -2 "$L/machine.txt" | tr '\n' ' ')"

# the configs read ../shared/data/wthor: point them at DATA
for src in experiments/gpu-session/supervised-gpu-long.toml experiments/b8c64-all/supervised-gpu-b8c64.toml; do
  c=$(basename "$src" .toml)
  sed -e "s|^wthor_dir = .*|wthor_dir = \"$DATA/wthor\"|" -e "s|^runs_dir = .*|runs_dir = \"$W/runs\"|" \
    "$src" > "$W/$c.toml"
  if [ "$SMOKE" = 1 ]; then
    sed -i -e 's|^train_years = .*|train_years = "2004"|' -e 's|^compile = true|compile = false|' \
      -e 's|^max_val_games = .*|max_val_games = 5|' \
      -e 's|^device = .*|device = "cpu"|' "$W/$c.toml"
  fi
done

stamp "start: CUDA tests, two supervised runs, self-play"
( timeout $TESTS $PY -m pytest -m cuda tests/training/test_cuda.py -q -rs -p no:cacheprovider \
    > "$L/cuda-tests.log" 2>&1; echo "exit $?" >> "$L/cuda-tests.log"; stamp "CUDA tests done" ) &
for c in supervised-gpu-long supervised-gpu-b8c64; do
  ( timeout $((LIMIT + 240)) $PY -m othellolab.cli train supervised "$W/$c.toml" \
      --time-limit $LIMIT --quiet > "$L/train-$c.log" 2>&1
    echo "exit $?" >> "$L/train-$c.log"; stamp "$c trained" ) &
done

# 8x8 self-play from the supervised b6c48-all, 100 simulations: GPU, then the same on the CPU
cat > "$W/sp.toml" <<EOF
name = "sp"
seed = 0
size = 8
runs_dir = "$W/sp-runs"
[model]
preset = "resnet-b6c48"
[selfplay]
variant = "puct"
simulations = 100
c_puct = 1.5
parallel = 128
leaves = 8
solve_empties = 14
[loop]
generations = 1
games = 512
shards = 4
workers = 4
window = 1
init = "b6c48-all"
[train]
batch_size = 256
samples_per_position = 1.0
[gate]
games = 0
[grade]
every = 0
[rate]
every = 0
[runtime]
threads = 1
device = "$DEV"
EOF
(
  for d in $DEV cpu; do
    sed -e "s|^device = .*|device = \"$d\"|" -e "s|^name = .*|name = \"sp-$d\"|" "$W/sp.toml" \
      > "$W/sp-$d.toml"
    [ "$SMOKE" = 1 ] && sed -i -e 's|^games = 512|games = 8|' -e 's|^simulations = .*|simulations = 8|' "$W/sp-$d.toml"
    timeout $SP $PY -m othellolab.cli train selfplay "$W/sp-$d.toml" --quiet \
      > "$L/selfplay-$d.log" 2>&1
    echo "exit $?" >> "$L/selfplay-$d.log"
    cp "$W/sp-runs/sp-$d/metrics.jsonl" "$L/selfplay-$d-metrics.jsonl" 2>/dev/null
    stamp "self-play on $d done"
    [ "$d" = cpu ] && break
  done
) &
wait

stamp "evaluate on 2023"
for run in b10c128-gpu3 b8c64-gpu; do
  model=$(ls -d "$W/runs/$run/models/"* 2>/dev/null | tail -1)
  [ -n "$model" ] || { stamp "$run: no model"; continue; }
  ( timeout 90 $PY -m othellolab.cli evaluate model "$model" --data "$DATA/wthor" --years 2023 \
      --device $DEV --batch-size 4096 --out "$W/eval-$run" --quiet > "$L/eval-$run.log" 2>&1
    echo "exit $?" >> "$L/eval-$run.log"; cp -r "$W/eval-$run" "$L/" 2>/dev/null ) &
done
wait
stamp "package"
for run in b10c128-gpu3 b8c64-gpu; do
  r=$W/runs/$run
  [ -d "$r" ] || continue
  cp "$r/metrics.jsonl" "$L/$run-metrics.jsonl" 2>/dev/null
  # the exported models and the run's small files; the b8c64 run's state too (it can resume)
  state=""; [ "$run" = b8c64-gpu ] && state="train"
  (cd "$W/runs" && tar cf "$OUT/$run.tar" --exclude=best.safetensors \
     "$run/models" "$run/run.toml" "$run/config.json" "$run/metrics.jsonl" \
     ${state:+"$run/$state"} 2>>"$L/tar.log")
done
tar czf "$OUT/logs.tar.gz" -C "$W" logs
ls -la "$OUT" | tee -a "$L/timeline.txt"
stamp "end"
