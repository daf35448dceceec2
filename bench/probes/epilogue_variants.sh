#!/bin/bash
# Variants of the suggested fused-epilogue kernel at one shape: bash bench/probes/epilogue_variants.sh KIND M N K
cd "$(dirname "$0")" && export PYTHONPATH=../..
K="$1"; S="$2 $3 $4"
B='"tile":[128,256,64],"warp_specialized":true,"tma_store":true,"stages":4,"cluster":[2,1]'
python3 epilogue_probe.py time $K $S rules=rules \
  e32="{$B,\"epilogue_tile\":[128,32]}" \
  e64r3="{$B,\"epilogue_tile\":[128,64],\"epilogue_stages\":3}" \
  rs24="{$B,\"epilogue_tile\":[128,64],\"register_split\":[24,240]}" \
  t256c12='{"tile":[256,128,64],"warp_specialized":true,"tma_store":true,"stages":4,"cluster":[1,2],"epilogue_tile":[256,64]}' \
  pers='{"tile":[128,256,64],"warp_specialized":true,"tma_store":true,"stages":3,"persistent":true,"index_type":"Int32"}' \
  2>&1 | grep -v "Warn\|rel err 1.6"
