export PYTHONPATH=.
P=bench/probes/matmul_probe.py
t() { python3 $P time "$@" --rotate --symbolic 2>&1 | grep -v "Warn\|rel err\|warn"; }
for s in "4096 64 4096" "16384 64 4096" "2048 64 2048" "8192 48 8192" "6000 32 5000" "12288 64 12288" "3000 56 9000"; do
echo "== $s"
t $s rules=rules 'a=pin:{"tile":[128,64,64],"compute_warp_groups":2,"cluster":[1,1]}' 'b=pin:{"tile":[64,64,64],"compute_warp_groups":1,"cluster":[1,1]}'
done
t 8192 64 8192 --tb rules=rules 'a=pin:{"tile":[128,64,64],"compute_warp_groups":2,"cluster":[1,1]}'
