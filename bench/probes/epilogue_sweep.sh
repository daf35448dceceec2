#!/bin/bash
# Epilogue variants at one shape, each kind against torch in the same rounds: bash bench/probes/epilogue_sweep.sh M N K
cd "$(dirname "$0")" && export PYTHONPATH=../..
S="$1 $2 $3"
B='"tile":[128,256,64],"warp_specialized":true,"tma_store":true,"index_type":"Int32"'
C21="{$B,\"stages\":4,\"cluster\":[2,1]}"
C21A="{$B,\"stages\":\"auto\",\"cluster\":[2,1]}"
P="{$B,\"stages\":\"auto\",\"persistent\":true}"
sub() { echo "${1%\}},\"epilogue_tile\":[128,$2]}"; }
python3 epilogue_probe.py time plain $S c21="$C21" c21e32="$(sub "$C21" 32)" 2>&1 | grep -v Warn
for kind in bias_relu bias_gelu; do
  python3 epilogue_probe.py time $kind $S rules=rules c21="$C21" c21e32="$(sub "$C21" 32)" c21e64="$(sub "$C21" 64)" p="$P" pe32="$(sub "$P" 32)" 2>&1 | grep -v Warn
done
for kind in alpha_beta residual; do
  python3 epilogue_probe.py time $kind $S rules=rules c21="$C21A" c21e32="$(sub "$C21A" 32)" c21e64="$(sub "$C21A" 64)" p="$P" pe32="$(sub "$P" 32)" 2>&1 | grep -v Warn
done
