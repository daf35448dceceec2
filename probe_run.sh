timeout 250 python3 -u bench/probes/attention_probe.py 'seq4096 d64 full,seq4096 d64 causal,seq16384 d64 full' 'kv128+s2,kv128+s3+ov,kv128+s2+ov' 2>&1 | grep "of flash"
timeout 300 python3 -u bench/probes/attention_probe.py 'seq4096 d128 full,seq4096 d128 causal,seq16384 d128 full' 'kv128+s2+wg2,kv128+s3+wg2+ov,kv128+s2+wg2+ov,kv128+ws+s3+wg2+rs+ov,kv128+s2+wg2+pp+ov' 2>&1 | grep "of flash\|rror"
