#!/usr/bin/env bash
# bench/trace.sh: speed and memory of stash-calibrate trace: the ResNet-50 profiler trace of
# shared/data (35 MB of JSON), then the same trace repeated to about 105 MB (its steps shifted in
# time, ids offset).
# Usage: bench/trace.sh [BUILD_DIR]. Prints wall time and peak memory (max RSS) of each.
set -euo pipefail
. "$(dirname "$0")/common.sh"
bin="${1:-build}/stash-calibrate"
src=tests/calibration/resnet50_v100_bs32_workers0.pt.trace.json.gz
[ -x "$bin" ] || { echo "bench/trace.sh: $bin not built" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$src" "$tmp/big.json" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
ev = d["traceEvents"]
span = max(e.get("ts", 0) + e.get("dur", 0) for e in ev) - min(e.get("ts", 0) for e in ev if "ts" in e)
out = []
for k in range(3):
    for e in ev:
        e = json.loads(json.dumps(e))
        if "ts" in e:
            e["ts"] += k * (span + 1000)
        a = e.get("args", {})
        for key in ("External id", "external id", "correlation"):
            if key in a:
                a[key] += k * 10**7
        if e.get("name", "").startswith("ProfilerStep#"):
            e["name"] = "ProfilerStep#%d" % (int(e["name"].split("#")[1]) + 100 * k)
        out.append(e)
d["traceEvents"] = out
json.dump(d, open(sys.argv[2], "w"))
PY
printf '%-44s %10s %8s %12s\n' trace MB wall_s maxrss_MiB
for f in "$src" "$tmp/big.json"; do
  mb=$(python3 -c "import gzip,os,sys; p=sys.argv[1]; print('%.0f' % (len((gzip.open(p) if p.endswith('.gz') else open(p,'rb')).read())/1e6))" "$f")
  out=$( { /usr/bin/time -f '%e %M' "$bin" trace "$f" -o "$tmp/w.json" --samples 50000 >/dev/null; } 2>&1 | tail -n 1)
  printf '%-44s %10s %8s %12.1f\n' "$(basename "$f")" "$mb" "${out% *}" "$(awk "BEGIN{print ${out#* }/1024}")"
done
