"""Suggested matmul parameters: ``suggest_matmul_params(fusion)`` picks the ``MatmulParams`` that
``schedule_matmul`` uses when none are given, from the problem's sizes, by rules drawn from H100
measurements (``bench/matmul_shapes.py``, graph-timed; ``docs/matmul.md``, "Suggested parameters", has the
rules in a table and the measurements behind each).

Like cuBLASDx's ``suggest_device_pipeline``, the caller may pin any field (``tile=``, ``stages=``,
...) and the rest are chosen around it; a problem the kernel cannot run, or a pinned field that
cannot work for it, is a ``ScheduleError`` naming the requirement: A's and B's K differ, a pinned
arrangement that cannot load an operand whose rows are not 16-byte multiples (TMA cannot; the compute
warp groups load it with cp.async or plain copies in a Pipelined kernel), a pinned pipeline deeper than the problem's K
tiles (not persistent), or a rule of ``MatmulParams.validate``. Unlike cuBLASDx no tile has to
divide the problem: TMA fills boxes past the edge with zeros and the stores are predicated (or
clipped by the TMA store).
"""

from __future__ import annotations

import warnings
from dataclasses import fields, replace
from typing import Any, NamedTuple

from target import current as current_target

from ..circular_buffer import MAX_USEFUL_STAGES
from ..fusion import Fusion
from ..types import INT32_INDEX_MAX, DataType, ScheduleError, StoreWait
from .matmul_params import MatmulParams, with_why
from .matmul_problem import MatmulProblem, OperandLoad, matmul_problem
from .matmul_why import FieldReason, ParamsWhy, field_values

# Deepest useful pipelines measured per tile: 128 x 128 ran 8 to 20 % slower with 5 to 7 stages
# than with 4 on every shape measured (bench/matmul_heuristic.py --extra; not understood yet), except in the
# ping-pong kernel at short K (PING_PONG_K_TILES), where its producer runs into the next tiles.
DEPTH_CAP = {(128, 128, 64): 4}
FEW_K_TILES = 4              # K tiles up to this: a tile is little but its epilogue (ping-pong hides it)
# Ping-pong 128 x 128 from a wave of its tiles where K has at most this many tiles, as deep as shared memory allows
# (6 stages with the TMA store): H100 2026-11-26, bench/probes/matmul_probe.py, ratio to cuBLAS with 6 stages /
# 4 stages / the former rule (persistent 128 x 256, 3 stages): K = 512 at 8192 x 8192 0.93 / 0.88 / 0.85,
# 16384 x 4096 0.95 / 0.93 / 0.85, 4096 x 4096 1.00 / 0.97 / 0.84; K = 256 at 8192 x 8192 1.01 / 0.96 (the former
# rule's ping-pong); K = 128 1.06 / 1.06; at K = 1024 (16 tiles) 0.85 / 0.84 against 0.87 persistent 128 x 256, and
# 3000 x 5000 x 1000 0.59 against 0.83: no ping-pong there. From 5 K tiles only from PERSISTENT_WAVES waves of
# 128 x 128 tiles: 3072 x 3072 x 384 (4.4 waves) 0.91 against 0.85, 6144 x 6144 x 320 1.10 / 0.91, 12288 x 4096 x 448
# 0.97 / 0.87, 2048 x 8192 x 512 0.97 / 0.85; under it ping-pong lost: 2048 x 2048 x 512 (1.9 waves) 0.88 / 0.95,
# 1024 x 4096 x 512 0.88 / 0.91, 1536 x 1536 x 512 (1.1 waves) 0.61 / 0.82. A bias epilogue kept the gain (8192 x 8192
# x 512 relu 0.91 of cuBLASLt against 0.81, 12288 x 4096 x 448 0.89 / 0.82), an [M, N] input did not (C: 1.01 of addmm
# against 1.07, residual 1.03 / 1.11; bench/matmul.py --epilogues-only --shapes). Up to 12 since the warp group index
# is read warp-uniform (codegen: ptxas keeps the descriptors in uniform registers; H100 2026-11-27, 6 stages against the
# rules before, the persistent 256 x 128 or a tile per block): 6144 x 6144 x 640 1.05 / 0.97, 12288 x 3072 x 576
# 1.04 / 0.98, 16384 x 2048 x 704 1.03 / 0.95, 4096 x 8192 x 768 0.97 / 0.93, 8192 x 8192 x 768 0.98 / 0.92,
# 2048 x 8192 x 640 1.02 / 1.00, 5120 x 2560 x 640 0.86 / 0.74, 4096 x 4096 x 640 1.03 / 0.99, 8192 x 2048 x 640
# 1.02 / 0.99, 4096 x 3072 x 768 1.02 / 1.00; 3072 x 3072 x 768 (4.4 waves) 0.89 / 0.90; at 16 K tiles it tied or
# lost (8192 x 8192 x 1024 0.96 / 0.95, 4096 x 4096 x 1024 0.99 / 1.00, 6144 x 4096 x 1024 0.96 / 0.98) and at 32
# lost (8192 x 8192 x 2048 0.89 / 0.99). Past 8 K tiles only with rows of 128-byte multiples and no epilogue input or
# math (PING_PONG_PLAIN_K_TILES): it lost with rows of 6000 bytes (4000 x 3000 x 640 0.81 against 0.98) and with a bias
# (relu at 4096 x 4096 x 640 0.97 of cuBLASLt against 1.03 persistent, at 8192 x 2048 x 768 0.82 against 1.02; gelu
# 0.98 against 0.93 and 0.84 against 0.95)
PING_PONG_K_TILES = 8
PING_PONG_PLAIN_K_TILES = 12
PERSISTENT_WAVES = 4         # tiles per SM from which the persistent kernel is suggested
# From four waves, a K of at least this many tiles: one tile per block instead of the persistent kernel; where an
# operand's rows are not 128-byte multiples, 128 x 256 in clusters of two (H100: 5000 x 7000 x 3000 0.89-0.93 of
# cuBLAS against 0.73 persistent and 0.73 a tile per block without clusters). With aligned rows and sub-tiled
# epilogues a tile per block without clusters ran faster (2026-11-26: 8192^3 0.98 against 0.95 in clusters, 16384^3
# 1.07 against 1.00, 8192 x 8192 x 2048 0.93 against 0.89, 8192 x 8192 x 4096 0.97 against 0.94). At K = 512 clusters
# ran 0.69-0.71 against 0.87-0.90 persistent
CLUSTER_K_TILES = 16
# Under four waves, a tile per block in clusters of two where an operand's rows are not 128-byte multiples and K
# has at least this many tiles (H100, 2026-11-26: 3000^3 B^T 192 x 192 0.90 of cuBLAS in clusters against 0.78,
# 1234 x 4568 x 888 256 x 128 0.67 against 0.61, 4000 x 3000 x 2000 0.92 against 0.91; with aligned rows clusters
# lost 1-5 %: 3072^3 0.89 against 0.91, 4096^3 0.94 against 0.96). Under a wave too: 900 x 3000 x 7000 (B's rows of
# 6000 bytes) with 128 x 192 0.72 against 0.55 (an aligned 896 x 3072 x 7168 ran 1.01 without; 128 x 256 in clusters
# of 2 or 4 along M, or 2 x 2, 0.73-0.74: the rest is the misaligned rows, not the L2 reads)
MISALIGNED_CLUSTER_K_TILES = 12
MISALIGNED_ROW_BYTES = 128
# split-K: the fewest K tiles (of 64) a split keeps. Each split adds 8 bytes of partials per output element (written,
# then read by the last block) against 2 K / split_k flops. Measured on the H100 (bench/matmul_shapes.py): 4 splits
# of 8192 (1024 x 1024 x 32768) ran 0.95 of cuBLAS against 0.86 without, 4 splits of 2048 (128 x 8192 x 8192) 0.74
# against 0.84: a split keeps at least 4096 of K
MIN_SPLIT_K_TILES = 64
MAX_SPLIT_K = 16             # the most splits the rules consider
SPLIT_K_OVERHEAD = 1.25      # split-K's predicted time x this: the partials' traffic and the last block's sum
SPLIT_K_SQUARE = (128, 128, 64)   # split-K's tile where the big tile's splits leave SMs idle (split_k_tile)
# A tile's fixed cost beside its K loop (the pipeline's fill, the epilogue), in the units of the tiles' predicted times
# (TM x TN x K tiles / rate): about 5 K tiles of 256 x 128. Fitted between 1234 x 4568 x 888 (K of 14 tiles: 2 waves of
# 256 x 128 ran faster than 3 of 128 x 128, 0.67 of cuBLAS against 0.61) and 3584 x 1792 x 4096 (K of 64 tiles: 3 waves
# of 128 x 128 faster than 2 of 256 x 128, 0.87 against 0.79), H100 2026-11-26
TILE_OVERHEAD = 25_000

BIG = (256, 128, 64)         # a tile per block under four waves: 2 compute warp groups of 128 x 128
BIG_COLUMNS = (128, 256, 64)  # the persistent kernel's tile (2 warp groups of 64 x 256)
PING_PONG = (128, 128, 64)   # a whole tile per warp group: the fastest ping-pong measured (bench/matmul.py)
# Tiles for problems of fewer big tiles than SMs, with the TFLOP/s one block of each reached with
# one tile per SM and a long K loop (1024 x 1024 x 32768 on an H100; 64 x 256 estimated from 8192 x 256 x 8192,
# where it ran 0.94 of cuBLAS and 128 x 128 0.87): a smaller tile runs slower per block but keeps more SMs busy.
# 1 to 4 waves: beside the 256 x 128 tile, three compute warp groups of 64 x 192 (rate fitted to 3000^3, where it
# ran 1.25x the 128 x 256 tile, and checked at 4096^3: 0.85x, as the waves predict)
SQUARE_TILES = (((192, 192, 64), 3, 6.68),)
# 1 to 4 waves, where they fill them better: 3584 x 1792 x 4096 with 128 x 128 0.87 of cuBLAS (3 waves) against 0.79
# with 2 waves of 256 x 128 at 74 %; 2816 x 2048 x 3072 with 128 x 192 0.87 (2 waves) against 0.83 with 128 x 128
WAVE_TILES = (((128, 192, 64), 2, 6.4), ((128, 128, 64), 2, 5.9))
# 256 x 192, two compute warp groups of 128 x 192, at 256 x 128's rate: a wave covers half as much again. H100,
# 2026-11-26, ratio to cuBLAS in the same rounds, against the former rules' tile: 1234 x 4568 x 888 0.91 (1 wave)
# against 0.72 (128 x 192, 2 waves), 4000 x 3000 x 2000 0.98 against 0.93, 2816 x 2048 x 3072 1.01 against 0.95
# (3 stages), 1000 x 6000 x 2000 0.99 against 0.91, 8192 x 8192 x 1024 0.85 against 0.84, 16384^3 0.88 against 0.85
# for 256 x 128 (42 waves against 63; cuBLAS's rate there varies from run to run); 3000 x 5000 x 1000 (no wave
# gained: the prediction keeps 256 x 128) 0.82 against 0.83.
# 256 x 160 (two compute warp groups of 128 x 160; an N-major B in 64-byte swizzle rows of 32 columns), at a rate a
# little under 256 x 192's: where it fills the waves or N better. H100, 2026-11-26, against the rules' tile then in
# the same rounds: 6400 x 1600 x 3200 0.98 of cuBLAS against 0.83 (N of 10 tiles: 2 waves of 250 tiles, where 256 x 192
# pads N by 8 %), 3072 x 5120 x 2560 0.98 against 0.91, B^T 4096 x 14336 x 4096 0.98 against 0.94, 10000 x 2048 x 1024
# 0.91 against 0.87, 3000 x 5000 x 1000 0.84 against 0.83; at 16384^3 it ran 0.95 against 256 x 192's 1.00, which the
# rate keeps (50 waves of it against 42)
WIDE_BIG_TILES = (((256, 192, 64), 2, 7.1), ((256, 160, 64), 2, 7.0))
# From PERSISTENT_TILE_WAVES waves of 256 x 128 tiles with K of PERSISTENT_K_TILES tiles, rows of 128-byte multiples,
# both operands TMA-loaded, A K-major, a 16-bit result, one output and no epilogue input, batched or not: the same
# tile persistent (the producer loads the next tile's stages while the compute warp groups run the epilogue, and no
# block is launched per tile), 64-bit indices, 4 stages beside a ring of 256 x 32 staging tiles, where the waves
# predict it faster than the tile per block: a tile's fixed cost PERSISTENT_TILE_OVERHEAD instead of TILE_OVERHEAD
# (fitted to 8192 x 8192 x 1024 and x 2048). H100, 2026-11-26, ratio to cuBLAS in the same rounds against the rules' tile then:
# 8192 x 8192 x 1024 0.94 against 0.85, 8192 x 8192 x 2048 1.00 against 0.94, 7168 x 7168 x 2048 0.97 against 0.92,
# 10000 x 2048 x 1024 0.97 against 0.92, 1792 x 7168 x 2048 1.00 against 0.95, 4096^3 0.99 against 0.97,
# 12288 x 4096 x 1536 0.92 against 0.91, 3328 x 3328 x 2048 1.00 against 0.99. Where the waves keep the tile per
# block it lost: 6400 x 1600 x 3200 (2.5 waves) 0.79 against 0.98, 2816 x 2048 x 3072 (1.3 waves) 0.73 against 1.04,
# 3584 x 1792 x 4096 (1.5 waves) 0.75 against 0.90; and outside the K range: 6144^3 0.94 against 0.99; at 5120 x 2560
# x 640 (10 K tiles) 0.70 against 0.73, which PERSISTENT_SHORT_K_MARGIN keeps out. With 32-bit indices the same kernel
# ran 0.80 at 8192 x 8192 x 2048 (ptxas keeps its
# wgmma descriptors in vector registers, moved to uniform ones before each wgmma: dispatch stalls), which is what
# the persistent cooperative kernels measured before this rule had.
# Chosen only where predicted at least PERSISTENT_MARGIN faster: within it the waves' model does not order them (6144 x
# 4096 x 3072, predicted 2 % faster than 4 waves of 256 x 192, ran 0.93 against 0.96; B^T 4096 x 14336 x 4096, 2 %
# faster than 256 x 160, 0.93 against 0.98; 3328 x 3328 x 2048, 3 %, 1.00 against 0.99). The same kernel from four
# waves with K of 9 to 15 tiles (the rule "four waves or more" for such problems): 8192 x 8192 x 768 0.91 against
# 0.86 (persistent 128 x 256, 32-bit indices, the whole tile staged, 3 stages), 16384 x 4096 x 640 0.90 against
# 0.87, 6144 x 8192 x 896 0.97 against 0.93; 128 x 256 with 64-bit indices and 128 x 32 sub-tiles 0.88 / 0.88 / 0.96
# Batched (the tiles of every batch counted, group_m fitted to one batch's rows), H100 2026-11-27, against the tile per
# block the rules took before: 16 x 1024^3 with B shared 1.00 against 0.89, 4 x 2048 x 2048 x 1024 0.98 against 0.90,
# 64 x 1024^3 0.94 against 0.84, 4 x 4096 x 4096 x 1024 0.91 against 0.87 (eight problems, all faster).
# Rate 7.1 since its ring of staging sub-tiles is carried across tiles (CARRIED_STORE_ROWS; 7.0 before): beside the
# persistent 128 x 256 (rate 7.1) on 9 problems drawn at random among the 214 of 600 where 128 x 256 had been taken, 256
# x 128 carried ran as fast or faster on all 9 (H100, 2026-11-27, --rotate, the same rounds: 14784 x 2432 x 1280 1.012
# against 0.997, 3328 x 7232 x 1152 1.002 against 0.990, 4736 x 10112 x 1024 0.956 against 0.947); checked on 9 more
# drawn among those 7.1 changes against the pick before: geomean 1.015, 5 faster (14848 x 4480 x 13184 1.16 against
# 1.10, 11520 x 12992 x 4032 1.06 against 1.02, 11008 x 3392 x 1728 1.03 against 1.00 for 192 x 192), 1 slower
# (8960 x 1344 x 10944 1.11 against 1.12 for 256 x 192 a tile per block).
PERSISTENT_TILE = (BIG, 2, 7.1)
# The persistent tile either way round, 256 x 128 or 128 x 256 (two compute warp groups of 64 x 256, sub-tiles of
# 128 x 32), whichever walks fewer waves (the walk covers the problem's tiles: persistent_group_m; before it
# was exact, its rows of tiles were padded to whole groups and counted so, as the figures below measured).
# H100, 2026-11-27,
# bench/probes/matmul_probe.py --rotate, ratio to cuBLAS in the same rounds against the rules before (which took
# 256 x 128 and counted no padded row), 21 problems drawn at random among those whose pick changed, 20 faster: to
# 128 x 256 persistent 4128 x 10752 x 2944 0.95 against 0.83, 4864 x 11264 x 2816 0.93 against 0.81, 9296 x 9600 x
# 1856 0.90 against 0.79, 13392 x 5312 x 1024 0.93 against 0.92; from a tile per block 4112 x 6144 x 3712 0.96
# against 0.84, 1296 x 12096 x 1856 0.97 against 0.83, but 10304 x 3264 x 3584 0.93 against 0.97; back to a tile per
# block where padded rows add a wave (9472 rows: 37 rows of 256 walked as 39) 5808 x 12352 x 4096 0.97 against
# 0.87, 10416 x 1984 x 1152 0.89 against 0.79 (bench/results/matmul_persistent_walk.json: rules 0.920, tuned 0.923)
# 128 x 256 at a rate 1.4 % over 256 x 128's: over 19 problems drawn at random (sizes multiples of 64 to 16384, H100,
# 2026-11-27, --rotate, the same rounds) it ran 1.4 % faster than the waves predicted against the persistent 256 x 128
# (10112 x 12160 x 13184 1.00 against 0.95, 13312 x 8896 x 11904 1.05 against 1.01, 11456 x 13952 x 7616 0.99 against
# 0.95), as fast at 8192^3, 6144^3, 4096^3 and 8192 x 8192 x 2048 (within 1 %), slower only where its waves are more
# (9792 x 4736 x 4544: 0.93 against 1.00, which the waves predict). 256 x 128 had been taken on a tie. Checked on 16
# problems drawn at random among the 255 of 600 whose pick it changes, against the pick before: geomean 1.016, 9
# faster, 4 slower by at most 0.6 % (1600 x 9024 x 12480 0.98 against 0.85 from 256 x 128, 9472 x 15744 x 4416 1.03
# against 0.99 and 10560 x 15424 x 8256 0.98 against 0.95 from 256 x 192 a tile per block). Since 256 x 128 carries its
# ring across tiles it is at 7.1 too (PERSISTENT_TILE) and first on a tie: 128 x 256 where it walks fewer waves.
PERSISTENT_TILES = (PERSISTENT_TILE, (BIG_COLUMNS, 2, 7.1))
# Narrower or three-group tiles where they fill the waves better, each at its rate per flop measured beside the big
# ones: H100, 2026-11-27, bench/probes/matmul_probe.py --rotate, persistent, ratio to cuBLAS over the fraction of the
# computed tiles' work that is the problem's (padding and the last wave's idle SMs), 8192 x 8192 x 4096 and 6144 x
# 6144 x 2048: 128 x 256 1.05 / 1.03, 256 x 128 1.05 / 1.04, 128 x 224 1.01 / 0.97 (1.03 / 1.00 in clusters of two),
# 256 x 192 1.01 / 1.01, 192 x 192 on three warp groups 1.03 / 1.02, 128 x 192 0.96 / 0.95, 256 x 160 0.99 / 0.98,
# 128 x 160 0.77 / 0.79. Taken: 192 x 192 on three warp groups. Checked on problems drawn at random among the 10 of
# 300 (150 of them with rows of 128-byte multiples) whose pick it changes (the same rounds, against the rules' pick
# before): 1152 x 12288 x 1408 1.03 against 0.89 (192 x 192 a tile per block), 3072 x 7680 x 3200 1.01 against 0.92
# (256 x 192 a tile per block), 2432 x 9600 x 3712 1.01 against 0.94, 10624 x 1280 x 3456 1.00 against 0.97, 6784 x
# 9600 x 2048 0.99 against 0.96 (persistent 256 x 128), 5632 x 10880 x 1920 0.99 against 0.97. Not taken: 128 x 224,
# which in clusters of two for misaligned rows (as the model chose it beside PERSISTENT_MISALIGNED_CLUSTER's 128 x
# 256) lost on 4 of 6 such problems (10200 x 4992 x 6952 0.85 against 0.92, 7664 x 7752 x 2536 1.06 against 1.21,
# 5208 x 8176 x 5144 0.84 against 0.90; 6176 x 2768 x 4800 1.06 against 1.05), and 256 x 192, unchecked.
# 192 x 192's rate raised from 6.85 to 7.0 (H100, 2026-11-27, the same 19 problems: it ran 2.2 % faster than
# predicted at 6.85; 10 problems drawn at random among the 51 of 600 whose pick it then changes, against 128 x 256 at
# 7.1 and the others: geomean 1.026, 6 faster (16128 x 10688 x 2048 1.07 against 0.93 for 256 x 192 a tile per block,
# 15424 x 10560 x 6976 1.07 against 0.99), 2 slower (11968 x 4800 x 8384 0.99 against 1.01, 15552 x 2432 x 13632 0.99
# against 1.00)). Persistent 256 x 192 and 256 x 160 (3 stages beside the staging ring) ran below their rate: 10880 x
# 4608 x 16000 0.98 and 0.92 against 1.04 for 128 x 256, 8192 x 2176 x 5184 0.96 and 0.85 against 0.99 for 192 x 192.
WAVE_PERSISTENT_TILES = (((192, 192, 64), 3, 7.0),)
# From four waves where an operand's rows are not 128-byte multiples, both operands TMA-loaded and no epilogue input
# (``_misaligned_persistent``): the persistent 128 x 256 in clusters of two along M, B's tile multicast (a
# misaligned box row touches five L2 sectors, not four), 64-bit indices. H100, 2026-11-27, bench/probes/matmul_probe.py
# --rotate, ratio to cuBLAS in the same rounds against the rules' persistent 128 x 256 without a cluster, on 11 problems
# drawn at random (M a multiple of 16, N or K not of 64): 11184 x 1880 x 640 0.84 against 0.71, 7264 x 2568 x 888 0.85
# against 0.66, 10960 x 2616 x 896 0.86 against 0.73, 9808 x 1704 x 896 0.80 against 0.70, 10752 x 1712 x 776 0.88
# against 0.81, 11856 x 1552 x 912 0.69 against 0.64, 11680 x 1936 x 608 0.89 against 0.85, 10704 x 2672 x 688 0.91
# against 0.87, 12672 x 2256 x 816 0.90 against 0.88, 9872 x 2288 x 816 0.88 against 0.87; 8160 x 2112 x 728 0.91
# against 0.92 (the same kernel without the cluster and with 64-bit indices ran as the rules': the cluster is the
# gain); 8192 x 3000 x 640 0.99 against 0.83 in bench/results/matmul_short_k.json. Where the rules take a tile per block
# it lost (4656 x 2848 x 608 0.83 against 0.93 for 192 x 192, 4560 x 2864 x 744 0.74 against 0.81, 9536 x 1704 x 848
# 0.97 against 1.02): only the persistent pick takes it. From K of 16 tiles too, where a tile per block of 128 x 256
# in clusters of two had been the rule (measured against a persistent kernel whose mainloop built its descriptors per
# thread: docs/matmul.md, "The elected thread"): H100, 2026-11-27, --rotate, the same rounds, against that tile per
# block, ten problems drawn at random among those it changes and two of bench/results/matmul_heldout_c.json: 12672 x
# 12624 x 1472 0.97 against 0.74, 9680 x 11856 x 7576 0.93 against 0.88, 4992 x 10776 x 6952 1.05 against 1.00, 10496
# x 4936 x 5256 0.97 against 0.93, 6368 x 10208 x 6232 0.98 against 0.94, 4416 x 6784 x 6112 0.92 against 0.89,
# 12896 x 7408 x 6744 1.07 against 1.04, 10304 x 5592 x 8008 1.25 against 1.22, 9344 x 8560 x 5512 1.02 against 1.00,
# 5536 x 10152 x 4576 0.92 either way; among the candidates of matmul_heldout_c.json and matmul_shapes.json (the
# same run) 8128 x 7296 x 1616 0.96 against 0.85, 5904 x 10688 x 1016 0.90 against 0.73, 5000 x 7000 x 3000 0.95
# against 0.90.
PERSISTENT_MISALIGNED_CLUSTER = (2, 1)
PERSISTENT_TILE_OVERHEAD = 9_000
# Where that persistent 128 x 256 leaves its last wave part idle (8984 x 2872 x 5480: 852 tiles, 6.45 waves) and K has
# at most MISALIGNED_BLOCK_K_TILES tiles: the tile per block of the waves' model (256 x 128, 192 x 192, 128 x 192,
# 128 x 128, 256 x 192 or 256 x 160, in the same clusters of two along M, the rows of tiles padded to whole clusters)
# where predicted at most MISALIGNED_BLOCK_MARGIN of the persistent kernel's time (_misaligned_block). H100,
# 2026-11-27, bench/probes/matmul_probe.py --rotate, ratio to cuBLAS in the same rounds, against the persistent 128 x
# 256: problems drawn at random among the 6 % of misaligned ones (M, N, K multiples of 8 in 2048-16384) predicted
# under 0.95, all 9 with K of at most 86 tiles faster: 3984 x 4136 x 4336 0.95 against 0.82, 6336 x 2872 x 5008 1.14
# against 1.01, 11888 x 2064 x 2216 0.95 against 0.87, 3056 x 6256 x 5240 0.99 against 0.91, 12712 x 2832 x 3232 0.93
# against 0.86, 15272 x 2440 x 3976 0.97 against 0.89, 8984 x 2872 x 5480 0.92 against 0.86, 10672 x 4704 x 4312 0.97
# against 0.93, 12280 x 3424 x 5456 0.95 against 0.91; with K of 134-252 tiles all 6 slower (6792 x 2400 x 8864 0.79
# against 0.81, 9472 x 2224 x 8528 0.77 against 0.82, 7864 x 3144 x 12808 0.81 against 0.86, 4616 x 5336 x 16096 0.85
# against 0.92, 5240 x 8728 x 11232 0.90 against 0.93, 6224 x 2576 x 15832 1.05 against 1.18), and one whose prediction
# had not counted the cluster's padded row (2784 x 9568 x 5080, 11 rows of 256 walked as 12: 0.78 against 0.89).
MISALIGNED_BLOCK_MARGIN = 0.95
MISALIGNED_BLOCK_K_TILES = 96
# Tried and not kept: these rows with K of 100 tiles or more as 160 x 256 with the wgmma's rows along N (swap_ab, as
# cuBLAS runs them), persistent in clusters along M. Against the persistent 128 x 256 (H100, 2026-11-27, --rotate,
# lowered for runtime extents as the bench lowers): where that kernel collapses it won by 10-25 % (15272 x 15032 x
# 11656 0.99 of cuBLAS against 0.78, 7864 x 3144 x 12808 0.98 against 0.85), elsewhere it lost 2-7 %: 7 of the held-out
# G and F problems it changed 0.96-0.97 geomean, 10 drawn among those a narrower form of it changed (A's rows not
# 32-byte multiples) 0.989 geomean, 6 of 10 slower. It is a tuning candidate (candidates.SWAPPED_TILES).
# The persistent tile of these rows (256 x 128) carries its ring of staging sub-tiles across the tile loop
# (store_wait="carried"): the elected thread no longer waits at a tile's end for the TMA store of its last 256 x 32
# sub-tile (16 KB) to read it, which held its warp group's next mainloop back. H100, 2026-11-27, the same process
# and rounds, "after_boxes" against "carried" (a text patch of the generated CUDA first, then the lowering):
# relu(a @ b + bias) at 8192 x 8192 x 2048 0.976 / 0.995, 0.979 / 0.998, 0.973 / 0.991 of cuBLASLt's fused kernel,
# the gelu 0.984 / 0.999, 0.984 / 0.998, 0.983 / 0.994, relu at 4096^3 1.004 / 1.013, the plain 256 x 128 at 8192 x
# 8192 x 2048 1.009 / 1.018 and 1.001 / 1.008 of cuBLAS; at 8192^3 and 6144^3 the same to 0.5 %. Not the 128-row
# tiles, whose last sub-tile is half as big: the plain 128 x 256 at 8192 x 8192 x 2048 ran 1.027 / 1.004, 1.001 /
# 0.998, 1.009 / 0.996, at 4096^3 1.009 / 0.999, the gelu with 128 x 256 0.978 / 0.980. Checked on 7 plain problems
# drawn at random among those the rules give the persistent 256 x 128 and 16384 x 16384 x 960, --rotate, the same
# rounds: all 8 faster carried, 0.3-3.6 % (11264 x 15744 x 15296 1.016 against 0.981, 15232 x 4480 x 3520 1.034
# against 1.005, 16384 x 16384 x 960 1.021 against 1.001, 16064 x 4928 x 2112 1.006 against 0.990).
CARRIED_STORE_ROWS = 256
# With a bias (vectors TMA-loaded beside the tile; no [M, N] input: C's tile does not fit beside 4 stages) the persistent
# tile is weighed as without it: its epilogue's math costs what it costs a tile per block, whose tensor cores wait on
# the epilogue as well. (A cost per element and op had been charged to the persistent tile alone, fitted when its
# mainloop built the wgmma descriptors per thread, a loss that grew with K: docs/matmul.md, "The elected thread".)
# H100, 2026-11-27, ratio to cuBLASLt's fused kernel in the same rounds, the persistent 256 x 128 tile against the
# tile per block the rules took: gelu(a @ b + bias) 4096^3 1.02 against 0.98, 8192 x 8192 x 2048 0.99 against 0.92,
# 8192 x 8192 x 1024 1.00 against 0.90, 4096 x 8192 x 3072 1.01 against 0.96; relu 4096^3 1.02 against 0.98
# Ping-pong 128 x 128 (32-bit indices, as deep as shared memory allows: 6 stages) where a tile per block or the
# persistent tile leaves its last wave part idle and 128 x 128 tiles fill theirs: from PING_PONG_WAVE_WAVES waves of
# them, K of PING_PONG_WAVE_K_TILES tiles, problems of PERSISTENT_TILE's kind without a batch, chosen where its waves
# (PING_PONG_WAVE_TILE's rate, a persistent tile's overhead; fitted when the walk padded rows to whole
# groups) predict it at
# most PING_PONG_WAVE_MARGIN of the rival's time. H100, 2026-11-27, bench/probes/matmul_probe.py --rotate, ratio to
# cuBLAS in the same rounds, ping-pong against the rules' pick before it. Fitted on: 3584 x 1792 x 1024 0.96 against
# 0.74 (1.5 waves of 256 x 128), 2304 x 2816 x 1024 0.95 against 0.73, 6144 x 1024 x 2048 0.92 against 0.82, 3584 x
# 1792 x 4096 0.99 against 0.87 (128 x 128 a tile per block: the same waves); where the big tiles fill their waves it
# lost, as the rate predicts: 2560 x 2304 x 1536 0.92 against 0.98, 2816 x 2048 x 3072 0.97 against 1.01, 6400 x 1600
# x 3200 0.71 against 0.98, 2048 x 2304 x 2048 0.76 against 0.99, 8192^3 0.87 against 1.00, 4096^3 0.96 against 1.04.
# Beyond 64 K tiles it lost as often as it won (2176 x 3968 x 8448 0.72 against 0.97, 9792 x 2112 x 8192 0.90 against
# 1.03, 3456 x 3008 x 15872 0.79 against 0.88; 896 x 9472 x 5376 0.96 against 0.87), and where padded rows add a wave
# (2432 x 2560 x 1856: 19 rows of tiles walked as 20, 0.71 against 0.81). Checked on problems drawn after the rule (18
# at random among those it changes): geomean 1.05 of the picks before it; 11 faster (9856 x 640 x 1216 0.92 against
# 0.73, 1376 x 9088 x 1088 0.96 against 0.78, 864 x 9280 x 1280 0.97 against 0.86), 7 slower (5664 x 3648 x 3840 0.79
# against 0.92, 4800 x 1216 x 2816 0.71 against 0.79, 800 x 9344 x 2944 0.64 against 0.70).
PING_PONG_WAVE_TILE = (PING_PONG, 2, 6.3)
PING_PONG_WAVE_WAVES = 2
PING_PONG_WAVE_K_TILES = (PING_PONG_PLAIN_K_TILES + 1, 64)
PING_PONG_WAVE_MARGIN = 0.95
PING_PONG_WAVE_STAGES = 6
PERSISTENT_K_TILES = (PING_PONG_K_TILES + 1, 64)   # a plain product to PING_PONG_PLAIN_K_TILES runs ping-pong first;
# past the second, PERSISTENT_LONG_K_MARGIN
PERSISTENT_TILE_WAVES = 2
PERSISTENT_MARGIN = 0.965
# With K under 16 tiles the waves' model overrates the persistent tile by 6-9 % (a tile per block's fixed cost weighs
# less there than TILE_OVERHEAD says): it is chosen only where predicted at most PERSISTENT_SHORT_K_MARGIN of the tile
# per block's time. H100, 2026-11-27, the same rounds, persistent against the rules' tile per block (predicted ratio in
# brackets): 4096 x 4096 x 640 0.98 against 0.84 (0.79), 8192 x 2048 x 640 0.99 against 0.83 (0.79), 4096 x 4096 x 768
# 0.98 against 0.89 (0.81), 2048 x 8192 x 896 0.97 against 0.88 (0.83), 4096 x 3072 x 768 0.99 against 0.96 (0.91),
# 3072 x 4096 x 832 1.00 against 0.96 (0.91), 6144 x 2048 x 896 0.98 against 0.96 (0.92), 3072 x 5120 x 704 0.97 either
# way (0.90); 5120 x 2560 x 640 0.72 against 0.75 (0.93: 3.03 waves of it against 2.86 of 192 x 192)
PERSISTENT_SHORT_K_MARGIN = 0.92
# Past PERSISTENT_K_TILES (K of more than 64 tiles) the persistent tile is taken wherever its waves are predicted no
# slower than the tile per block's: there a tile's fixed cost is a small part of its time, so the model cannot see
# what the persistent kernel saves (the next tile's stages loaded during the epilogue, no block launched per tile);
# the K range had been kept at 64 tiles after random problems lost with the walk padded to whole groups and its tile
# coordinates divided once per epilogue sub-tile ("The grouped walk" in docs/matmul.md). H100, 2026-11-27,
# bench/probes/matmul_probe.py --rotate, ratio to cuBLAS in the same rounds against the rules' tile per block, ten
# problems drawn at random among the 80 of 400 it changes and two squares: 3808 x 9984 x 6016 1.00 against 0.98,
# 568 x 14912 x 9216 0.99 either way, 4832 x 5760 x 5504 0.96 against 0.92, 14904 x 7424 x 5504 0.97 against 0.94,
# 4312 x 13952 x 4480 0.98 against 0.94, 2216 x 8704 x 8064 0.94 against 0.89, 14456 x 6784 x 7360 1.01 against 0.98,
# 15328 x 11008 x 4928 0.99 against 0.95, 5080 x 13056 x 7936 1.01 against 0.99, 15336 x 12736 x 4288 0.99 against
# 0.94, 8192^3 1.01 against 0.95, 6144^3 1.00 against 0.99
PERSISTENT_LONG_K_MARGIN = 1.0
# From PERSISTENT_MANY_WAVES waves of 256 x 128 tiles on, the persistent tile is likewise taken wherever predicted no
# slower (PERSISTENT_LONG_K_MARGIN) than the tile per block: with its ring of staging sub-tiles carried across tiles
# and each tile's first k step writing the accumulators (no zeroing), it ran faster than the model says on every such
# problem measured, and PERSISTENT_MARGIN's cases are of a few waves (6144 x 4096 x 3072: 5.8). H100, 2026-11-27,
# bench/probes/matmul_probe.py --rotate, the persistent 256 x 128 against the rules' tile per block (256 x 192 or
# 256 x 160; predicted ratio 0.967-1.000 for all): 14 problems drawn at random (multiples of 8, at least 12 waves, K
# of 1024-4096) all as fast or faster, 11152 x 10240 x 3456 1.01 against 0.95, 14256 x 15104 x 3072 1.00 against
# 0.93, 10976 x 9792 x 1856 1.00 against 0.94, 11672 x 4480 x 2432 0.952 against 0.948, 13056 x 5312 x 3328 0.995
# against 0.992; 16384 x 16384 x 4096 1.02 against 0.96
PERSISTENT_MANY_WAVES = 8
# 128 x 192 (rate from 1536 x 1536 x 6000 and 768 x 3072 x 12288, 96 tiles in one wave: 0.85 of cuBLAS against 0.66 and
# 0.75 with 72 tiles of 128 x 256 or their split-K, H100 2026-11-26): a wave of it covers a third more than 128 x 256
FEW_TILES = ((BIG_COLUMNS, 2, 7.1), ((128, 192, 64), 2, 6.4), ((64, 256, 64), 1, 6.4), ((128, 128, 64), 2, 5.9),
             ((64, 128, 64), 1, 4.5))
# 64 x 256 (one compute warp group) under a wave only where the problem is skinny, M of at most STREAMED_B_M rows
# or N of at most 256 columns (``_skinny``): there it ran 0.93-1.13 of cuBLAS (192 x 8192 x 8192 0.94, 8192 x 256 x 8192
# 0.93, 384 x 4096 x 12000 1.13, against 0.77, 0.86 and 1.03 for 128 x 128), elsewhere far below its rate (H100,
# 2026-11-26, against the tile the rules pick without it: 640 x 2560 x 16384 0.75 against 0.95 (128 x 128),
# 1200 x 1200 x 12000 0.78 against 1.13 (128 x 128 without a cluster), 448 x 2880 x 11520 0.51 against 0.80, B compute-loaded at 2000 x 700 x 9000
# 0.30 against 1.26)
SKINNY_TILE = (64, 256, 64)
# Under one wave, a skinny M (at most STREAMED_B_M rows, two rows of tiles or more) whose B is larger than half the L2
# and K of at least CLUSTER_K_TILES tiles runs in clusters of two: a B element feeds only 2 M flops, so B's reads
# bound the kernel, and a cluster halves them. Along M where the rows of tiles are even (the blocks that read each B
# tile share it by multicast), else along N where the columns are (sharing A's tile; no padded block). H100 2026-11-26, ratio to
# cuBLAS in clusters against without: 128 x 8192 x 8192 with 64 x 128 0.97 against 0.84 (cuBLAS runs the same tile in
# clusters of two); 256 x 12288 x 12288 with 128 x 192 1.00 against 0.79; 192 x 8192 x 8192 with 64 x 256 0.84 in
# (1, 2) against 0.63; 256 x 8192 x 16384 with 64 x 256 0.87 against 0.54. Where B fits in L2 they lost (1024^3 0.71
# against 0.96, 8192 x 256 x 8192 0.91 against 0.94), and at M = 512 (512 x 8192 x 16384) too (0.93 against 0.99)
STREAMED_B_M = 384
# Under one wave of 128 x 256 tiles with K of at least CLUSTER_K_TILES tiles, both operands TMA-loaded and a 16-bit
# result: tiles in 2-D clusters of 2 x 2 (each block shares A's tile with its cluster row and B's with its cluster
# column, a quarter of the L2 reads of one block per tile), whose waves count the blocks resident in clusters of four
# (Target.cluster_blocks: 120 of the H100's 132 SMs) and the tiles padded to whole clusters. Rates fitted on the H100,
# 2026-11-26, in the same rounds as cuBLAS and the rules' tile then: 1536 x 1536 x 6000 with 128 x 160 0.98 of cuBLAS
# against 0.85 (128 x 192, one block per tile; 128 x 160 without a cluster ran 0.73), 768 x 3072 x 12288 with
# 128 x 160 0.98 against 0.85, 448 x 2880 x 11520 with 128 x 96 0.78-0.80 against 0.51 (split-K; 128 x 96 without
# a cluster 0.54, in clusters of (4, 1) 0.78). Where the blocks exceed a wave of clusters they lost by half or more
# (256 x 8192 x 16384 with 128 x 128 in (2, 2): 0.49; clusters of 8 at 1536 x 1536 x 6000: 0.49), which the
# waves predict; at short K (640, 1000) 128 x 160 in clusters lost to the rules' tiles (0.55-0.64 against 0.75-0.84)
CLUSTER_TILES = (((128, 160, 64), 2, 6.2, (2, 2)), ((128, 96, 64), 2, 5.1, (2, 2)))
# Under one wave, a skinny side that one tile spans, where the other operand streams from DRAM (larger than half the
# L2): one row (column) of tiles reads each of that operand's tiles once, where 64-row tiles read B once per row of
# tiles. M of SPAN_FILL x 192 to 192 rows: one compute warp group of 3 x 64 rows, 192 x 64 where its blocks fit a wave,
# else 192 x 128; N of 192: 64 x 192 on one warp group where its row tiles fit a wave (over a wave the rules' 128 x 192
# ran as fast: 12288 x 192 x 4096 and 16384 x 176 x 2048 0.96-0.97 either way). Its blocks at least half a wave, rows of
# 128-byte multiples, no epilogue input (none measured). H100 2026-11-27, ratio to cuBLAS against the rules' tile then
# (64 x 256 or 128 x 256, in clusters of two), the same rounds: 192 x 8192 x 8192 0.98-1.01 against 0.91, 192 x 8192 x
# 12288 1.02 against 0.93, 192 x 6144 x 8192 0.91 against 0.68, 160 x 16384 x 8192 0.96 against 0.90, 176 x 10240 x 6144
# 1.02 against 0.84, 192 x 12288 x 4096 0.95 against 0.89, 192 x 16384 x 2048 0.99 against 0.93, B^T 192 x 8192 x 8192
# 0.96 against 0.89 and B^T 192 x 16384 x 4096 0.99 against 0.93 (drawn after the rule); 8192 x 192 x 8192 0.99-1.01
# against 0.68 (B^T 0.96 against 0.58), 6144 x 192 x 8192 1.01 against 0.99, 4096 x 192 x 4096 0.85 against 0.73 (64
# blocks), 8192 x 192 x 2048 1.01 against 0.80 (drawn after). Where it does not apply: 192 x 4096 x 4096 (64 blocks of
# 192 x 64) 0.73 against 0.84; a quarter of the tile padding (its MMAs on rows past M: the spanning tile keeps the
# tensor cores busy, where 64-row tiles waited on B's reads and lost little to the same padding): 144 x 8192 x 12288
# 0.70-0.74 against 0.73-0.87, 136 x 8192 x 8192 0.67-0.76 against 0.85, and, drawn after a first version that took N
# of 160 to 192, 5000 x 176 x 8192 0.84 against 1.12 (128 x 96 in 2 x 2), 6144 x 176 x 20000 0.73 against 1.00, 5000 x
# 160 x 20000 0.67 against 0.90 (split-K), 6144 x 160 x 4096 0.76 against 0.80 (8192 x 160 x 8192 won, 0.80 against
# 0.62); a misaligned K (B^T 8192 x 192 x 3000 0.66 against 0.70). In clusters of two 192 x 64 ran 0.94-0.96 against
# 0.98-1.01. SPAN_FILL: M of 168 rows or more; drawn after a first version that took 160 (5 / 6), 160 x 8192 x 8192 lost
# (0.78 against 0.86) where 160 x 16384 x 8192 had won (192 x 128: 0.96 against 0.90). The rest drawn after that version
# (against the rules before, the same rounds): 168 x 7168 x 8192 0.82 against 0.57, 176 x 6144 x 8192 0.86 against 0.64,
# 176 x 8192 x 4096 0.94 against 0.85, B^T 176 x 5000 x 8192 0.99 against 0.79, 176 x 16384 x 4096 0.98 against 0.95,
# 184 x 12288 x 6144 0.94 against 0.87, 192 x 16384 x 4096 0.99 against 0.96, B^T 192 x 7168 x 16384 1.34 against 1.00,
# 8192 x 192 x 16384 1.02 against 0.64, B^T 8192 x 192 x 2048 0.96 against 0.66. Since 2026-11-28 the short-M rule
# (_short_tile, below) takes M of at most 192 rows wherever 192 x 64's blocks fit a wave: the rows case keeps 192 x 128
# over a wave of them, SPAN_ROWS stays a tuning candidate.
SPAN_ROWS = (192, 64, 64)
SPAN_ROWS_WIDE = (192, 128, 64)
SPAN_COLUMNS = (64, 192, 64)
SPAN_FILL = 7 / 8
# Under one wave, N of at most 64 columns: a tile as wide as the problem (a 128-wide tile computes and stages padded
# columns; these problems stream A from DRAM once, where the blocks' loads in flight bound them): 64 x 64 on one
# compute warp group where its rows of tiles fit a wave (more blocks reading A), else 128 x 64 on two. Rows of any
# 16-byte multiple (misaligned ones too), no batch, no epilogue input (none measured). H100 2026-11-28
# (bench/probes/matmul_probe.py --rotate --symbolic), ratio to cuBLAS, 64 x 64 / 128 x 64 / the rules before (64 x 128
# or 128 x 128), the same rounds: 4096 x 64 x 4096 0.91 / 0.77 / 0.72, 2048 x 64 x 2048 0.65 / 0.48 / 0.61, 8192 x 48
# x 8192 0.96 / 0.91 / 0.69, 6000 x 32 x 5000 0.89 / 0.88 / 0.67, 3000 x 56 x 9000 0.74 / 0.58 / 0.54, 8192 x 64 x
# 8192 0.96 / 0.96 / 0.88; over a wave of 64-row tiles 10496 x 64 x 2816 0.75 (twelve stages) / 0.94 / 0.88, 16384 x
# 64 x 4096 0.94 / 0.98 / 0.94, and the one it misses, 12288 x 64 x 12288 (192 rows of tiles) 0.94 / 0.92 / 0.91
# Drawn after the rule (bench/probes/draw_shapes.py --kind narrow --seed 2026112803), against the rules before: 15936 x
# 56 x 6536 0.97 against 0.87, 7986 x 24 x 6640 0.73 against 0.70, 4815 x 48 x 7192 0.86 against 0.56
NARROW_N = 64
NARROW_TILE = (64, 64, 64)
NARROW_TILE_WIDE = (128, 64, 64)
# Under one wave, M of at most SHORT_M rows and N in a wave of 64-column tiles: the instruction's rows along N
# (swap_ab), its N the problem's M rounded up to 16, on one compute warp group (a 64-row tile computes padded rows
# where M is short, and its rows of tiles read B again; a tile of all of M reads B once, as cuBLAS's N along torch's M
# does). H100 2026-11-28 (bench/probes/matmul_probe.py --rotate --symbolic), ratio to cuBLAS, the short tile against
# the rules before (64 x 128 or 64 x 256, in clusters of two where B streams): 16 x 8192 x 8192 1.00 against 0.90, 16 x
# 4096 x 14336 1.00 against 0.75, 32 x 4096 x 4096 0.94 against 0.75, 8 x 8192 x 8192 1.00 against 0.92, 96 x 8192 x
# 8192 1.00 against 0.97, 80 x 4096 x 4096 0.94 against 0.82, 112 x 6144 x 4096 0.98 against 0.94, 128 x 8192 x 8192
# 0.98 against 0.97, 136 x 5000 x 6000 0.71-0.79 against 0.52, 176 x 5000 x 8192 1.37-1.44 against 0.88, 192 x 8192 x
# 8192 1.02 against 1.02 (192 x 64 unswapped); it lost at 125 x 5336 x 8208 (0.79 against 0.86) and B^T 126 x 6312 x
# 5408 (0.85 against 0.91), whose two rows of 64-row tiles pad 2-3 rows and share B's tile in clusters of two.
# - Over a wave of 64-column tiles the rules stand: 16 x 28672 x 4096 1.02 (swapped 16 x 256 on two groups 1.03, 16 x
#   64 0.92), 32 x 16384 x 8192 0.99 (32 x 128 1.00), 48 x 12288 x 4096 1.00 (48 x 64 0.96).
# - Over 192 rows a 256-row tile on two warp groups pads at most a quarter and it won with its split-K: 226 x 5392 x
#   14432 1.34 against 1.09 (the short tile in 3 splits), 240 x 6136 x 14688 1.05 against 1.01, B^T 212 x 5552 x 2896
#   0.96 against 0.88; the short tile won at 256 x 8192 x 8192 (0.96 against 0.87) and 239 x 6600 x 8864 (0.77 against
#   0.74), so the tuner's candidates hold it to SHORT_MAX_M.
# - K is split into as many parts as keep the blocks within one wave, each at least SHORT_MIN_SPLIT_K_TILES K tiles
#   (short_split): 128 x 2048 x 16384 in 4 splits 1.06 against 0.93, 16 x 2352 x 13424 in 3 1.09 against 0.56, 85 x
#   3136 x 7752 in 2 0.91 against 0.76, 140 x 2584 x 5960 in 2 0.72 against 0.58 (unsplit 0.56), 16 x 2048 x 8192 in 4
#   1.04 against 0.60 (unsplit 0.70-1.03 over runs), 1 x 4096 x 4096 in 2 0.87 against 0.94 unsplit. Splits of two
#   waves lost: 176 x 5000 x 8192 in 3 1.10 against 1.44 unsplit, 125 x 5336 x 8208 in 3 0.72 against 0.79 unsplit.
# - At most SHORT_M_STREAMED rows the tile is cheap beside B's stream from DRAM: any number of blocks (42 x 1240 x 1464,
#   20 blocks: 0.67 against 0.49). Over it the tile's math counts: at least half a wave of blocks, else the other rules
#   (238 x 1200 x 5424, 19 blocks, 0.46 against 0.69).
SHORT_M = 192
SHORT_MAX_M = 256                # the swapped tile's M is the instruction's N: at most 256
SHORT_TILE_N = 64                # one compute warp group's 64 instruction rows
SHORT_TILE_K = 64
SHORT_ROW_STEP = 16              # the TMA store's stmatrix.trans stores pairs of 8-column blocks: M in 16s
SHORT_M_STREAMED = 64
SHORT_MIN_SPLIT_K_TILES = 32


class Span(NamedTuple):
    """A tile that spans a skinny side (``_span_tile``): its shape, compute warp groups, whether the instruction's
    rows run along N (``MatmulParams.swap_ab``) and why."""
    tile: tuple[int, int, int]
    groups: int
    why: str
    swap_ab: bool = False
    split_k: int = 1


def suggest_matmul_params(fusion: Fusion, *, sms: int | None = None, **pinned: Any) -> MatmulParams:
    """``MatmulParams`` for ``fusion``'s matmul on a GPU of ``sms`` SMs (default: the current target's,
    132 on an H100 SXM; pass ``runtime.sm_count()`` for the GPU at hand); ``pinned`` fields are kept as given.

    Sizes come from the inputs' constant extents (``fusion.add_input(shape=...)``); with symbolic
    ones the kernel must suit any size and gets the arrangement with the best worst case measured.
    Raises ``ScheduleError`` for a problem the kernel cannot run (K of A and B differ) and for pinned fields that cannot work (``MatmulParams.validate``'s
    rules; ``stages`` deeper than the K tiles of a kernel that is not persistent).

    With no field pinned, a winner of ``runtime.tuning.tune_matmul`` for this problem on the installed
    device (``tuning_cache``: ``FUSION_TUNING_DEVICE`` or ``tuning_cache.use(device=...)``) comes first.
    The params carry why they were chosen (``params.why``: the rule per field, or the tuning-cache entry).
    """
    names = {f.name for f in fields(MatmulParams)}
    unknown = sorted(set(pinned) - names)
    if unknown:
        raise ScheduleError(f"suggest_matmul_params: {', '.join(unknown)} is not a MatmulParams field "
                            f"(fields: {', '.join(sorted(names))})")
    if sms is not None and (isinstance(sms, bool) or not isinstance(sms, int) or sms < 1):
        raise ScheduleError(f"suggest_matmul_params: sms {sms!r} must be a positive int (the GPU's SM count)")
    problem = matmul_problem(fusion)
    if not pinned:
        tuned = tuned_params(fusion, problem, sms)
        if tuned is not None:
            return tuned
    return rule_params(problem, sms, pinned)


def tuned_params(fusion: Fusion, problem: MatmulProblem, sms: int | None = None) -> MatmulParams | None:
    """The tuning cache's winner for ``fusion`` on the installed device (``tuning_cache.current_device()``),
    carrying its entry as ``why``; None without a device, an entry, or when the entry no longer suits the
    problem (it fails ``validate``: a warning) or ``sms`` (its blocks differ)."""
    from .matmul_key import problem_key
    from .tuning_cache import TuningCacheWarning, lookup_winner, tuned_why

    key = problem_key(fusion, problem)
    entry = lookup_winner(key)
    if entry is None:
        return None
    params = entry.params
    if sms is not None and params.blocks != sms:
        return None
    try:
        params.validate(problem.dtype, problem.loaded_tiles, problem.layout, problem.loads, outputs=problem.outputs)
    except ScheduleError as e:
        warnings.warn(f"the tuned matmul params for {entry.device!r}, {key!r} no longer validate ({e}); "
                      f"scheduling with the rules", TuningCacheWarning, stacklevel=3)
        return None
    return with_why(replace(params), tuned_why(entry))


def rule_params(problem: MatmulProblem, sms: int | None = None, pinned: dict[str, Any] | None = None) -> MatmulParams:
    """The rules' ``MatmulParams`` for ``problem`` (``suggest_matmul_params`` without the tuning cache), carrying
    the rule behind each field as ``why``."""
    pinned = dict(pinned or {})
    given_sms = sms is not None
    sms = current_target().sm_count if sms is None else sms
    if isinstance(sms, bool) or not isinstance(sms, int) or sms < 1:
        raise ScheduleError(f"suggest_matmul_params: sms {sms!r} must be a positive int (the GPU's SM count)")
    chosen, rule, reasons = explain_arrangement(problem, sms)
    ruled_cluster = chosen.get("persistent") and chosen.get("cluster", (1, 1)) != (1, 1)   # the rules' own
    chosen = {**chosen, "blocks": sms}
    reasons["blocks"] = (f"sms={sms}: the GPU's SM count, as given" if given_sms else
                         f"{sms}: the SM count of the target ({current_target().name}); pass sms= for another GPU")
    compute_loaded = compute_loaded_arrangement(problem, chosen)
    if compute_loaded:
        chosen.update(compute_loaded)
        rule = f"{rule}; an operand TMA cannot load: compute-loaded, Pipelined"
        for name in compute_loaded:
            reasons[name] = ("an operand whose rows are not 16-byte multiples: the compute warp groups load it "
                             "(cp.async or plain copies) in a Pipelined kernel, one tile per block")
        reasons["index_type"] = ("compute-loaded: 32-bit index math where every tensor fits (an address per copied "
                                 "vector)" if chosen["index_type"] is DataType.Int32 else
                                 "compute-loaded, but a tensor needs 64-bit indices")
        oriented = compute_loaded_tile(problem, chosen["tile"])
        if oriented != chosen["tile"]:
            chosen["tile"] = oriented
            reasons["tile"] = (f"compute-loaded {'A' if not problem.loads[0].tma else 'B'}: the big tile with that "
                               f"operand's side short ({oriented[0]} x {oriented[1]})")
    if pinned.get("ping_pong") is True and not chosen.get("ping_pong"):   # arranged around a pinned ping-pong
        chosen.update(tile=PING_PONG, compute_warp_groups=2, persistent=True, tma_store=problem.tma_store_possible)
        for name in ("tile", "compute_warp_groups", "persistent", "tma_store"):
            reasons[name] = "ping_pong=True pinned: its arrangement (128 x 128 per warp group, persistent, TMA store " \
                            "for a 16-bit result)"
    chosen.update(pinned)
    if "persistent" not in pinned and chosen.get("persistent") and (
            pinned.get("grouped_grid") is True or pinned.get("split_k", 1) > 1):
        # a pinned grouped grid or split-K runs a block per tile: the suggested persistent kernel gives way
        chosen["persistent"] = False
        if "ping_pong" not in pinned:
            chosen["ping_pong"] = False
        reasons["persistent"] = "a block per tile: a pinned grouped grid or split-K does not run persistent"
    if pinned.get("stream_k") is True:          # arranged around a pinned stream-K kernel (docs/matmul.md, "Stream-K")
        for name, value in STREAM_K_ARRANGEMENT:
            if name not in pinned and chosen.get(name, value) != value:
                chosen[name] = value
                reasons[name] = ("stream_k=True pinned: a Pipelined kernel walking its own ranges of tiles (not "
                                 "persistent, no split-K, no cluster)")
    if chosen.get("ping_pong") and "ping_pong" not in pinned and not (
            chosen.get("persistent") and chosen.get("warp_specialized") and "tile" not in pinned
            and chosen.get("compute_warp_groups", 2) >= 2):
        chosen["ping_pong"] = False          # a pinned field the suggested ping-pong cannot keep: cooperative
        reasons["ping_pong"] = "cooperative: a pinned field does not suit the suggested ping-pong"
    cm, cn = chosen.get("cluster", (1, 1))
    if "cluster" not in pinned and cm * cn > 1:    # a suggested cluster the kernel or the GPU cannot take
        if ((chosen.get("persistent") and not ruled_cluster) or chosen.get("split_k", 1) > 1
                or not chosen.get("warp_specialized") or chosen.get("grouped_grid")):
            dropped = "no cluster: a pinned field (persistent, split-K, a grouped grid or Pipelined) does not take one"
        elif _wave_blocks(sms, cm * cn) == 0:
            dropped = f"no cluster: no cluster of {cm * cn} blocks is resident on {sms} SMs"
        else:
            dropped = None
        if dropped is not None:
            chosen["cluster"] = (1, 1)
            reasons["cluster"] = dropped
    cm, cn = chosen.get("cluster", (1, 1))
    resident = _wave_blocks(sms, cm * cn)
    if "blocks" not in pinned and chosen.get("persistent") and 0 < resident < sms:
        # a persistent kernel's blocks all resident at once: on the H100 30 clusters of four fit (120 blocks), and
        # 132 blocks in clusters of four ran 0.47-0.61 of cuBLAS (a second wave of 12 blocks walking their tiles)
        chosen["blocks"] = resident
        reasons["blocks"] = (f"{resident}: the blocks resident at once in clusters of {cm * cn} on {sms} SMs "
                             f"(Target.cluster_blocks), so that every block of the persistent kernel runs in one wave")
    tile = pinned.get("tile") or chosen["tile"]
    along = chosen.get("cluster", (1, 1))[0 if chosen.get("raster", "m") == "m" else 1]
    group = persistent_group_m(problem, tile, chosen.get("cluster", (1, 1)), chosen.get("raster", "m"))
    if chosen.get("persistent") and "group_m" not in pinned and group is not None:   # group: M is known
        lines = problem.row_tiles(tile) if chosen.get("raster", "m") == "m" else problem.col_tiles(tile)
        chosen["group_m"] = group
        clusters = f" in whole clusters of {along}" if along > 1 else ""
        which = "rows" if chosen.get("raster", "m") == "m" else "columns"
        reasons["group_m"] = (f"{group}: {GROUP_M} {which} of tiles{clusters} share each tile of the other operand "
                              f"in L2, fewer where there are fewer ({lines}) (persistent_group_m); the walk covers "
                              f"the {lines} {which} and no more (the last group holds the {which} left)")
    grouped = grid_group(problem, chosen, sms)
    if "grouped_grid" not in pinned and grouped is not None and not ({"group_m", "raster"} & set(pinned)):
        chosen["grouped_grid"], chosen["group_m"], chosen["raster"] = True, grouped, "m"
        reasons["grouped_grid"] = (GROUPED_GRID_WHY.format(stream=row_major_stream(problem, chosen["tile"], sms))
                                   if problem.tma_operands else GROUPED_LOADS_WHY)
        reasons["group_m"] = (f"{grouped}: groups of {GROUP_M} of the {problem.row_tiles(chosen['tile'])} rows "
                              f"of tiles, fewer where there are fewer (the last group holds the rows left)")
    if "split_k" not in pinned and chosen.get("persistent"):
        chosen["split_k"] = 1                   # a pinned persistent kernel: split-K is not implemented for it
    if "compute_warp_groups" not in pinned and "tile" in pinned:
        chosen["compute_warp_groups"] = _warp_groups_for(pinned["tile"])
        reasons["compute_warp_groups"] = "the pinned tile's rows: 2 warp groups when M is a multiple of 128, else 1"
    groups, split = chosen.get("compute_warp_groups", 2), chosen.get("register_split", (40, 232))
    if "register_split" not in pinned and ((split is not None and split != register_split(groups))
                                           or "tile" in pinned or "compute_warp_groups" in pinned):
        # the split of the final warp groups: a pinned field (a tile, ping_pong=True) may change them, and a split
        # made for three groups would leave two 128 x 128 accumulators 152 registers, spilling
        chosen["register_split"] = register_split(groups)
        reasons["register_split"] = "setmaxnreg: the producer keeps 40, the compute warp groups share the rest"
    params = MatmulParams(**chosen)
    if "epilogue_tile" not in pinned:
        params = replace(params, epilogue_tile=epilogue_sub_tile(params, problem))
        reasons["epilogue_tile"] = _sub_tile_reason(params)
    if "store_wait" not in pinned and _carries(params):     # decided on the final kernel, pinned fields and all
        params = replace(params, store_wait="carried")
        reasons["store_wait"] = ("rule carried: a tile's last sub-tiles of 256 x 32 are stored under the next tile's "
                                 "mainloop, waited for before the next tile writes their staging tiles "
                                 "(CARRIED_STORE_ROWS; relu(a @ b + bias) at 8192 x 8192 x 2048 0.99 of cuBLASLt "
                                 "against 0.98)")
    if "epilogue_stages" not in pinned:
        params = replace(params, epilogue_stages=ring_depth(params))
        reasons["epilogue_stages"] = "a ring of 2 staging tiles (1 where the tile holds one sub-tile)"
    if "epilogue_loads" not in pinned and producer_epilogue_loads(params, problem):
        reasons["epilogue_loads"] = PRODUCER_LOADS_NOT_FASTER
    if "stages" not in pinned:
        # the placeholder depth: a pinned field's rule first
        params.validate(problem.dtype, problem.loaded_tiles, problem.layout, problem.loads, outputs=problem.outputs)
        params = replace(params, stages=_depth(params, problem))
        reasons["stages"] = _depth_reason(params, problem)
    params.validate(problem.dtype, problem.loaded_tiles, problem.layout, problem.loads, outputs=problem.outputs)
    _check_depth(params, problem, pinned)
    for name in pinned:
        reasons[name] = "pinned by the caller"
    summary = rule if not pinned else f"{rule}; pinned: {', '.join(sorted(pinned))}"
    field_reasons = tuple(FieldReason(name, value, reasons.get(name, DEFAULT_REASONS.get(name, "the default")))
                          for name, value in field_values(params))
    return with_why(params, ParamsWhy("rule", summary, field_reasons))


# The fields a pinned ``stream_k=True`` sets where they are not pinned too (``MatmulParams.validate_stream_k``)
STREAM_K_ARRANGEMENT = (("warp_specialized", False), ("persistent", False), ("ping_pong", False), ("split_k", 1),
                        ("cluster", (1, 1)), ("epilogue_loads", "consumer"))

# Why the fields the arrangement leaves alone have their values
DEFAULT_REASONS = {
    "group_m": "the default: 8 row tiles walked per column of B (L2 reuse; persistent kernels and grouped grids)",
    "grouped_grid": "not grouped: the blocks in row-major order over [Mo (BIDy), No (BIDx)]",
    "register_split": "the default: setmaxnreg 40 for the producer, 232 for the compute warp groups",
    "store_wait": "the default: the TMA store's reads are waited for right after its boxes",
    "ping_pong": "cooperative: ping-pong is suggested for short K and narrow N only",
    "epilogue_loads": "consumer: no epilogue input, or a kernel without a producer warp group, sub-tiles or one "
                      "epilogue per tile; each compute warp group loads its tile's inputs itself",
    "warp_specialized": "every suggestion: a producer warp group issues the loads (the Pipelined kernel was never "
                        "faster by more than noise)",
}


SUB_TILE_COLUMNS = 64             # a tile per block: the epilogue's sub-tiles (the staging ring reuses A's and B's memory)
PERSISTENT_SUB_TILE_COLUMNS = 32  # persistent with C or several outputs: a ring beside the stages, kept small


def epilogue_sub_tile(params: MatmulParams, problem: MatmulProblem | None = None) -> tuple[int, int] | None:
    """The epilogue's sub-tile for ``params`` (``MatmulParams.epilogue_tile``): with the TMA store (and its default
    wait) and a tile per block, every row of the tile and 64 of its columns; persistent, 32 of them where the
    ``problem``'s epilogue reads an input TMA loads (the small ring leaves C's tile room for a third stage:
    ``2 a @ b + 0.5 C`` at 8192 x 8192 x 512 ran 1.08 of torch.addmm against 0.85 with the whole tile on the H100;
    ``relu(a @ b + bias)`` there 0.86 of cuBLASLt's fused kernel against 0.80) or writes several outputs (their shared
    epilogue, the pre-activation, is computed into registers: a whole tile's spilled 1.8 KB a thread there, 128 x 32
    sub-tiles none) or is cooperative; None otherwise.

    Measured on the H100 at 8192^3 (clusters of two, 128 x 256): ``2 a @ b + 0.5 C`` 0.969 of torch.addmm with
    128 x 64 sub-tiles, 0.960 with 128 x 32, 0.946 with the whole tile; ``relu(a @ b + bias)`` 0.903 of cuBLASLt's
    fused epilogue with 128 x 64 against 0.896; a plain matmul 0.93 against 0.91 of cuBLAS. Ping-pong without an
    epilogue input keeps the whole tile: with 128 x 32 sub-tiles it fell from 1.07 to 0.74 of cuBLAS at 4096 x 4096 x
    128 (a short K's tile is mostly epilogue, which the sub-tiles serialize into rounds of barriers and stores). The
    cooperative persistent kernel had fallen too (8192 x 8192 x 512: 0.88 to 0.80), with 32-bit indices, which slowed
    it on their own; with 64-bit ones it takes ``TM x 32`` sub-tiles and a fourth stage beside them
    (``PERSISTENT_TILE``: 8192 x 8192 x 2048 1.00 of cuBLAS). Ping-pong with C and one output keeps the whole tile:
    its groups take turns on one staging tile, where sub-tiles would need a ring per group (as much memory) and
    serialize the epilogue its other group's mainloop hides."""
    if not params.tma_store or StoreWait.of(params.store_wait) is StoreWait.Deferred:
        return None
    if params.swap_ab:
        return _swapped_sub_tile(params, problem)
    if params.ping_pong and (problem is None or problem.outputs == 1):
        return None      # with C too: a ring per warp group takes the room of the one whole tile they take turns on
    tm, tn, _ = params.tile
    width = PERSISTENT_SUB_TILE_COLUMNS if params.persistent else SUB_TILE_COLUMNS
    for en in (width, 32, 16):
        if en <= tn and tn % en == 0:
            return (tm, en)
    return None


# Swapped operands (MatmulParams.swap_ab): the whole tile staged where it fits beside this many stages, else the
# widest sub-tile of rows whose ring does. H100, 2026-11-27, persistent, the same rounds, of cuBLAS: 160 x 256 in
# clusters along M with 16-row sub-tiles (4 stages) 0.80-0.99 against 0.69-0.95 with 32-row ones (3 stages) on six
# shapes (4136 x 3624 x 13112: 0.97 against 0.87); 208 x 128 with the whole tile (4 stages) 0.82-0.98 against
# 0.65-0.92 with 16-row sub-tiles (13 a tile, each two boxes, five stages)
SWAPPED_STAGES = 4


def _swapped_sub_tile(params: MatmulParams, problem: MatmulProblem | None) -> tuple[int, int] | None:
    """The sub-tile of swapped ``params``: None (the whole tile) where it fits beside ``SWAPPED_STAGES`` stages, else
    ``(EM, TN)``, the most rows (a multiple of 16 dividing TM) whose ring fits beside them; None where none does."""
    tm, tn, _ = params.tile
    shape = ({"dtype": DataType.BFloat16} if problem is None else
             {"dtype": problem.dtype, "loaded": problem.loaded_tiles, "layout": problem.layout, "loads": problem.loads,
              "outputs": problem.outputs})
    limit = current_target().smem_per_block
    deep = replace(params, stages=SWAPPED_STAGES, epilogue_tile=None)
    if deep.smem_bytes(**shape) <= limit:
        return None
    pair = 2 * current_target().wgmma.n_step
    for em in range(tm - tm % pair, 0, -pair):
        if tm % em == 0 and em < tm:
            sub = replace(deep, epilogue_tile=(em, tn))
            if replace(sub, epilogue_stages=ring_depth(sub)).smem_bytes(**shape) <= limit:
                return (em, tn)
    return None


# The producer warp group's epilogue loads (MatmulParams.epilogue_loads="producer") ran as fast as the compute warp
# groups' own, not faster, on the H100 (bench/matmul.py --epilogues-only --epilogue-loads producer,consumer,
# 2026-11-26, bench/results/matmul_epilogue_loads.json): at 4096^3, 8192^3 and 8192 x 8192 x 2048 each of the bias +
# relu, bias + gelu, alpha * a @ b + beta * C and residual epilogues within -1.1 % to +0.9 % of the consumer path. The
# rules keep the consumer path; the tuner's candidates hold the producer path where it applies.
PRODUCER_LOADS_NOT_FASTER = ("consumer: each compute warp group loads its tile's inputs itself; the producer "
                             "warp group's pipeline of them (epilogue_loads=\"producer\", a tuning candidate) ran "
                             "within 1 % of it on the H100, not faster")


def producer_epilogue_loads(params: MatmulParams, problem: MatmulProblem) -> bool:
    """Whether the producer warp group may load the epilogue's inputs (``MatmulParams.epilogue_loads="producer"``,
    a tuning candidate): there are some and the kernel has a producer, sub-tiles and one epilogue per tile (no
    split-K), but not for a persistent kernel of several outputs: there (``bias_gelu_pre`` at 8192 x 8192 x 512, 128 x 32 sub-tiles) the
    compute warp groups' registers spilled 48 bytes with the stage's index math of the pipeline beside the shared
    pre-activation (ptxas, nvcc 13), none with their own loads."""
    return bool(problem.loaded_tiles) and params.warp_specialized and params.epilogue_tile is not None \
        and params.split_k == 1 and (problem.outputs == 1 or not params.persistent)


def ring_depth(params: MatmulParams) -> int:
    """Staging tiles of the epilogue's ring: two (the default, unused without sub-tiles), or one where the tile holds
    a single sub-tile."""
    return 2 if params.epilogue_tile is None else min(2, params.sub_tiles())


def with_sub_tile(params: MatmulParams, problem: MatmulProblem | None = None) -> MatmulParams:
    """``params`` with the sub-tile ``epilogue_sub_tile`` gives and its ring (``ring_depth``)."""
    params = replace(params, epilogue_tile=epilogue_sub_tile(params, problem))
    return replace(params, epilogue_stages=ring_depth(params))


def _sub_tile_reason(params: MatmulParams) -> str:
    if params.swap_ab and params.tma_store:
        if params.epilogue_tile is None:
            return (f"the whole tile: swapped, it fits beside {SWAPPED_STAGES} stages (_swapped_sub_tile; 208 x 128 "
                    f"ran 0.82-0.98 of cuBLAS whole against 0.65-0.92 in 16-row sub-tiles)")
        em, tn = params.epilogue_tile
        return (f"{em} x {tn}: swapped, the most rows whose ring fits beside {SWAPPED_STAGES} stages "
                f"(_swapped_sub_tile)")
    if params.epilogue_tile is None:
        return ("the whole tile: register stores stage nothing, a deferred store wait keeps one staging tile, and "
                "ping-pong's groups take turns on one (with sub-tiles it ran 0.74 of cuBLAS against 1.07 at 4096 x 4096 "
                "x 128)")
    tm, en = params.epilogue_tile
    if params.persistent:
        return (f"{tm} x {en}: persistent and cooperative: a small ring beside the stages (a fourth stage for the "
                f"operands, a third beside C's tile; a shared epilogue is computed one sub-tile at a time, without "
                f"spills)")
    return (f"{tm} x {en}: the epilogue walks the tile in sub-tiles through a ring of {params.epilogue_stages} "
            f"staging tiles, which reuses the operands' memory")


def arrangement(problem: MatmulProblem, sms: int) -> dict[str, Any]:
    """The rules of docs/matmul.md, "Suggested parameters", as MatmulParams fields (the depth comes after)."""
    return explain_arrangement(problem, sms)[0]


def explain_arrangement(problem: MatmulProblem, sms: int) -> tuple[dict[str, Any], str, dict[str, str]]:
    """``arrangement``'s fields, the rule that fired (one line) and the reason for each field it decided."""
    # the TMA store: a 16-bit result, unless the epilogue reads an input from global memory and no [M, N] input
    # (its register stores ran faster, docs/matmul.md, Fused epilogues): a bias is a shared vector (ping-pong: one
    # per warp group)
    tma_store = problem.tma_store_possible and not (problem.broadcast > problem.vectors and not problem.loaded)
    store = ("the TMA store: a 16-bit result" if tma_store else
             "register stores: stmatrix stores 16-bit elements" if not problem.tma_store_possible else
             "register stores: the epilogue reads an input from global memory, which spills with the TMA store")
    ws = {"warp_specialized": True, "persistent": False, "ping_pong": False, "tma_store": tma_store, "stages": 2,
          "index_type": DataType.Int64}
    big = {**ws, "tile": BIG, "compute_warp_groups": 2}
    tiles = problem.tiles(BIG_COLUMNS)
    if tiles is None:                                          # sizes unknown: any size must run
        rule = "M or N unknown (symbolic): the kernel must run at any size"
        return {**big, "tma_store": False}, rule, _reasons(
            "sizes unknown", "256 x 128, 2 warp groups of 128 x 128", "not persistent: that needs the sizes",
            "register stores: the sizes are unknown", "64-bit indices: the sizes are unknown")
    fits = _fits_int32(problem)
    index = DataType.Int32 if fits else DataType.Int64
    index_why = ("32-bit indices: every tensor has fewer than 2^31 elements" if fits else
                 "64-bit indices: a tensor has 2^31 elements or more")
    ping_pong = {**ws, "tile": PING_PONG, "compute_warp_groups": 2, "persistent": True, "ping_pong": True,
                 "index_type": index}
    k_tiles = problem.k_tiles(BIG[2])
    short_k = k_tiles is not None and k_tiles <= FEW_K_TILES
    # from FEW_K_TILES to PING_PONG_K_TILES: with TMA operands (its producer warp group), PERSISTENT_WAVES waves and
    # no [M, N] epilogue input (each group's C tile beside the stages: the persistent 128 x 256 kept it faster)
    pp_tiles = problem.tiles(PING_PONG)
    ping_pong_k = (PING_PONG_K_TILES if problem.tma_operands and not problem.loaded and pp_tiles is not None
                   and pp_tiles >= PERSISTENT_WAVES * sms else FEW_K_TILES)
    if ping_pong_k == PING_PONG_K_TILES and _plain(problem) and not misaligned_rows(problem):
        ping_pong_k = PING_PONG_PLAIN_K_TILES      # no epilogue to hide, the warp groups' loads in whole L2 lines
    if k_tiles is not None and k_tiles <= ping_pong_k and pp_tiles >= sms:  # type: ignore[operator]
        # a tile is little but its epilogue: ping-pong runs one warp group's epilogue under the other's mainloop
        few = k_tiles <= FEW_K_TILES
        rule = (f"K of at most {FEW_K_TILES if few else ping_pong_k} tiles (K = {problem.k}: {k_tiles} tiles of "
                f"{BIG[2]}) and {'a wave' if few else f'{PERSISTENT_WAVES} waves'} of 128 x 128 tiles"
                f"{'; rows of 128-byte multiples and no epilogue' if k_tiles > PING_PONG_K_TILES else ''}: ping-pong")
        return ping_pong, rule, _reasons(
            "short K", "128 x 128 per warp group", "persistent ping-pong: one warp group's epilogue runs under the "
            "other's mainloop (1.07 of cuBLAS at 4096 x 4096 x 128)", store, index_why, ping_pong=True)
    if tiles < sms:                                            # under one wave of big tiles
        span = _span_tile(problem, sms)
        if span is not None:
            rule = f"T < S: {tiles} tiles of 128 x 256 under one wave of {sms} SMs; one tile spans the skinny side"
            reasons = _reasons("span", span.why, "not persistent: under one wave", store, "64-bit indices")
            fields = {**ws, "tile": span.tile, "compute_warp_groups": span.groups,
                      "register_split": register_split(span.groups)}
            if span.swap_ab:
                fields["swap_ab"] = True
                reasons["swap_ab"] = ("rule short M: the instruction's rows along N, its N the tile's "
                                      f"{span.tile[0]} rows (C^T = B^T A^T)")
            if span.split_k > 1:
                fields["split_k"] = span.split_k
                columns = problem.col_tiles(span.tile)
                assert columns is not None
                reasons["split_k"] = (f"rule short M: {span.split_k} splits of K make {columns * span.split_k} "
                                      f"blocks of {columns} columns, the most within one wave of {sms} with "
                                      f"{SHORT_MIN_SPLIT_K_TILES} K tiles or more each (short_split)")
            return fields, rule, reasons
        few = tuple(entry for entry in FEW_TILES if entry[0] != SKINNY_TILE or _skinny(problem))
        few += CLUSTER_TILES if tma_store and _two_d_clusters(problem, k_tiles) else ()
        tile, split = split_k_tile(problem, sms, few)
        if split > 1:                                          # a long K: more blocks per tile, not smaller tiles
            tiles = problem.tiles(tile)
            tile_why = SPLIT_K_TILE_WHY[tile]
            rule = (f"T < S and a long K: {tiles} tiles of {tile[0]} x {tile[1]} under one wave of {sms} SMs, "
                    f"{k_tiles} K tiles: split-K {split}")
            reasons = _reasons("split-K", tile_why, "not persistent: a block per tile and K range",
                               store, "64-bit indices")
            reasons["split_k"] = (f"rule split-K: {split} splits of at least {MIN_SPLIT_K_TILES} K tiles make "
                                  f"{tiles * split} blocks ({-(-tiles * split // sms)} waves of 1/{split} of a tile's work: the "
                                  f"least predicted time of the splits), predicted faster than a smaller tile")
            reasons["warp_specialized"] = (
                "rule split-K: warp-specialized (H100, 2026-11-27, against Pipelined in the same rounds: 1024 x 1024 x "
                "32768 0.95 of cuBLAS against 0.93, 2048 x 512 x 20000 0.91 against 0.89, 512 x 2048 x 16384 0.91 "
                "against 0.89; 1000 x 1000 x 20000 0.81 against 0.83)")
            return ({**ws, "tile": tile, "compute_warp_groups": 2, "split_k": split,
                     "register_split": register_split(2)}, rule, reasons)
        best = _fastest(problem, sms, few)
        tile, groups = best[:2]
        rule = f"T < S: {tiles} tiles of 128 x 256 under one wave of {sms} SMs"
        options = _predicted_text(problem, sms, few)
        chosen = {**ws, "tile": tile, "compute_warp_groups": groups}
        reasons = _reasons(
            "T < S", f"the least predicted ceil(tiles / S) x TM x TN / rate of FEW_TILES and CLUSTER_TILES ({options}"
                     f"{'' if _skinny(problem) else '; no 64x256: M over 384 rows and N over 256 columns'}): a smaller "
                     f"tile is slower per block but keeps more SMs busy",
            "not persistent: under one wave", store, "64-bit indices")
        if len(best) > 3:                                      # a tile of CLUSTER_TILES, in its cluster
            cm, cn = chosen["cluster"] = best[3]
            reasons["cluster"] = (f"rule 2-D clusters: {cm} x {cn} blocks, each sharing A's tile with its cluster row "
                                  f"and B's with its cluster column by TMA multicast ({k_tiles} K tiles; 1536 x 1536 x "
                                  f"6000 with 128 x 160: 0.98 of cuBLAS against 0.85)")
            return chosen, f"{rule}; a long K: {'x'.join(map(str, tile[:2]))} tiles in 2-D clusters", reasons
        cluster = _streamed_b_cluster(problem, tile, k_tiles)
        if cluster is not None:
            chosen["cluster"] = cluster
            along = "M, sharing B's tile" if cluster == (2, 1) else "N, sharing A's tile (the rows are odd)"
            reasons["cluster"] = (f"rule streamed B: M = {problem.m} in {problem.row_tiles(tile)} rows of "
                                  f"{tile[0]}-row tiles, {k_tiles} K tiles and a B larger than half the L2: clusters "
                                  f"of two along {along} by TMA multicast (128 x 8192 x 8192: 0.97 of cuBLAS against 0.84; 256 x 12288 x 12288: "
                                  f"1.00 against 0.79)")
            rule = f"{rule}; a skinny M and a B streamed from DRAM: clusters of two"
            return chosen, rule, reasons
        cluster = _misaligned_cluster(problem, tile, k_tiles) if tma_store else None
        if cluster is not None:
            chosen["cluster"] = cluster
            reasons["cluster"] = (f"rule misaligned rows: an operand's rows are not 128-byte multiples and K has "
                                  f"{k_tiles} tiles: clusters of two halve the shared operand's L2 reads "
                                  f"(900 x 3000 x 7000 with 128 x 192: 0.72 of cuBLAS against 0.55)")
            rule = f"{rule}; misaligned rows: clusters of two"
        return chosen, rule, reasons
    if problem.n is not None and problem.n <= PING_PONG[1]:
        rule = f"N = {problem.n} of at most {PING_PONG[1]}: a 256-wide tile would be half empty or more"
        return ping_pong, rule, _reasons(
            "narrow N", "128 x 128 per warp group", "persistent ping-pong (1.02 of cuBLAS at 32 x 2048 x 128 x 2048)",
            store, index_why, ping_pong=True)
    # clusters where L2 is the bottleneck: rows that are not 128-byte multiples, or an [M, N] epilogue input's reads
    # beside the operands' (2 a @ b + 0.5 C at 8192^3 on the H100: 1.01 of torch.addmm in clusters, 0.95 without)
    long_k = (k_tiles is not None and k_tiles >= CLUSTER_K_TILES and not misaligned_rows(problem)
              and not problem.loaded)
    if short_k or tiles < PERSISTENT_WAVES * sms or not problem.tma_store_possible or long_k:
        # a tile per block: 256 x 128 ran at least as fast as 128 x 256 on every shape of 1 to 4 waves measured
        chosen = dict(big)
        why = ("a float result" if not problem.tma_store_possible else f"K of at most {FEW_K_TILES} tiles"
               if short_k else f"under {PERSISTENT_WAVES} waves ({tiles} tiles of 128 x 256 on {sms} SMs)"
               if tiles < PERSISTENT_WAVES * sms else
               f"{tiles} tiles of 128 x 256 on {sms} SMs, K of {k_tiles} tiles (at least {CLUSTER_K_TILES}), rows of "
               f"128-byte multiples and no [M, N] epilogue input: a tile per block without clusters (8192^3: 0.98 of "
               f"cuBLAS against 0.95 in clusters and 0.97 persistent)")
        tile_why = "256 x 128, 2 warp groups: at least as fast as 128 x 256 on every such shape measured"
        if tma_store:
            # a 192 x 192 tile where it fills whole waves better (3000^3: 2 waves of it instead of 3 of 128 x 256)
            options = (_block_options(_wide_big_tiles(problem, k_tiles)) if problem.tma_operands else
                       ((BIG, 2, 7.1), *SQUARE_TILES))
            best = _fastest(problem, sms, options)
            tile, groups = best[:2]
            chosen.update(tile=tile, compute_warp_groups=groups, register_split=register_split(groups))
            tile_why = f"the least predicted time of the tile-per-block tiles ({_predicted_text(problem, sms, options)})"
            found = _persistent_tile_time(problem, sms, k_tiles)
            persistent, entry = found if found is not None else (None, PERSISTENT_TILE)
            per_block = _predicted(problem, sms, best)
            waves_pp = _ping_pong_wave_time(problem, sms, k_tiles)
            rival = per_block if persistent is None else min(per_block, persistent)
            name = " x ".join(map(str, entry[0][:2]))
            if waves_pp is not None and waves_pp <= PING_PONG_WAVE_MARGIN * rival:
                rule = (f"ping-pong on waves: {problem.tiles(PING_PONG)} tiles of 128 x 128 on {sms} SMs and K of "
                        f"{k_tiles} tiles, predicted {waves_pp / rival:.2f} of "
                        f"{'persistent ' + name if rival != per_block else _entry_name(best) + ' a tile per block'}")
                return ping_pong, rule, _reasons(
                    "ping-pong on waves", f"128 x 128 per warp group: its waves of tiles predicted {waves_pp:.0f} "
                    f"against {rival:.0f} ({_predicted_text(problem, sms, options)}; PING_PONG_WAVE_TILE)",
                    "persistent ping-pong: 128 x 128 tiles fill the waves where the big tiles leave the last one "
                    "part idle, each warp group's epilogue under the other's mainloop", store, index_why,
                    ping_pong=True)
            short = k_tiles is not None and k_tiles < CLUSTER_K_TILES
            long_k = k_tiles is not None and k_tiles > PERSISTENT_K_TILES[1]
            many_waves = problem.tiles(BIG) >= PERSISTENT_MANY_WAVES * sms  # type: ignore[operator]
            margin = (PERSISTENT_SHORT_K_MARGIN if short else PERSISTENT_LONG_K_MARGIN if long_k or many_waves
                      else PERSISTENT_MARGIN)
            if persistent is not None and persistent <= margin * per_block:
                rule = (f"persistent {name}: {problem.tiles(entry[0])} tiles of {name} on {sms} SMs and K of "
                        f"{k_tiles} tiles, predicted "
                        f"{persistent / per_block:.2f} of {_entry_name(best)} a tile per block's time")
                return _persistent_tile(big, store, f"predicted {persistent:.0f} against {per_block:.0f} for "
                                        f"{_entry_name(best)} a tile per block, at most {margin} of it "
                                        f"({_predicted_text(problem, sms, options)})", rule, entry)
        reasons = _reasons(f"one tile per block, {why}", tile_why, "not persistent: a tile per block beat or tied "
                           "the persistent kernel under four waves", store, "64-bit indices")
        if tma_store:
            reasons["register_split"] = (f"setmaxnreg: the producer keeps 40, {chosen['compute_warp_groups']} compute "
                                         f"warp groups share the rest (register_split())")
        cluster = _misaligned_cluster(problem, chosen["tile"], k_tiles) if tma_store and not short_k else None
        if cluster is not None:
            chosen["cluster"] = cluster
            reasons["cluster"] = (f"rule misaligned rows: an operand's rows are not 128-byte multiples (each 128-byte "
                                  f"box row touches 5 L2 sectors, not 4) and K has {k_tiles} tiles: clusters of two "
                                  f"halve the shared operand's L2 reads (3000^3 B^T with 192 x 192: 0.90 of cuBLAS "
                                  f"against 0.78; 1234 x 4568 x 888: 0.67 against 0.61)")
            return chosen, f"otherwise: {why}; misaligned rows: clusters of two", reasons
        return chosen, f"otherwise: {why}", reasons
    if (k_tiles is not None and k_tiles >= CLUSTER_K_TILES and _multicast_possible(problem)
            and problem.m >= 2 * BIG_COLUMNS[0] and not _misaligned_persistent(problem)):  # type: ignore[operator]
        rule = (f"T >= {PERSISTENT_WAVES} S, K of {CLUSTER_K_TILES} tiles or more ({k_tiles}) and a 16-bit result: "
                f"{tiles} tiles of 128 x 256 on {sms} SMs ({tiles / sms:.1f} waves), in clusters of two")
        reasons = _reasons("clusters", "128 x 256, 2 warp groups of 64 x 256",
                           "not persistent: a tile per block, clusters of two (on the H100 0.93-1.00 of cuBLAS "
                           "where the persistent kernel ran 0.73-0.97, K >= 3000)", store, "64-bit indices")
        reasons["cluster"] = ("rule clusters: two blocks of adjacent tile rows share B's 64 x 256 tile by TMA "
                              "multicast (half its L2 reads)")
        return {**big, "tile": BIG_COLUMNS, "cluster": (2, 1)}, rule, reasons
    rule = (f"T >= {PERSISTENT_WAVES} S and a 16-bit result: {tiles} tiles of 128 x 256 on {sms} SMs "
            f"({tiles / sms:.1f} waves)")
    if _persistent_tile_problem(problem):
        k_text = "K unknown" if k_tiles is None else f"K of {k_tiles} tiles (under {CLUSTER_K_TILES})"
        return _persistent_tile(big, store, f"{k_text} from "
                                f"{PERSISTENT_WAVES} waves (8192 x 8192 x 768: 0.91 of cuBLAS against 0.86 for "
                                f"persistent 128 x 256 with 32-bit indices)", f"{rule}: persistent 256 x 128")
    if _misaligned_persistent(problem):
        block = _misaligned_block(problem, sms, k_tiles)
        if block is not None:
            entry, ratio = block
            tile, groups = entry[:2]
            name = _entry_name(entry)
            rule = (f"{rule}; misaligned rows, K of {k_tiles} tiles: {name} a tile per block, predicted {ratio:.2f} "
                    f"of the persistent 128 x 256's time")
            reasons = _reasons("misaligned waves", f"{tile[0]} x {tile[1]}, {groups} warp groups: the least predicted "
                               f"time of the tile-per-block tiles in clusters of two along M "
                               f"({_predicted_text(problem, sms, _misaligned_block_options())}), at most "
                               f"{MISALIGNED_BLOCK_MARGIN} of the persistent 128 x 256 in its clusters "
                               f"(MISALIGNED_BLOCK_K_TILES)", "not persistent: its tiles fill the waves that the "
                               "persistent 128 x 256 leaves part idle", store, "64-bit indices")
            reasons["cluster"] = ("rule misaligned rows: clusters of two along M share B's tile by TMA multicast, as "
                                  "the persistent kernel's (PERSISTENT_MISALIGNED_CLUSTER); the waves count the "
                                  "rows of tiles padded to whole clusters")
            reasons["register_split"] = (f"setmaxnreg: the producer keeps 40, {groups} compute warp groups share "
                                         f"the rest (register_split())")
            return ({**big, "tile": tile, "compute_warp_groups": groups, "cluster": PERSISTENT_MISALIGNED_CLUSTER,
                     "register_split": register_split(groups)}, rule, reasons)
        reasons = _reasons("four waves or more", "128 x 256, 2 warp groups of 64 x 256",
                           f"persistent: {sms} resident blocks walk the tiles in grouped order", store,
                           "64-bit indices: as the persistent clusters were measured")
        reasons["cluster"] = (f"rule misaligned rows, persistent: an operand's rows are not 128-byte multiples and K "
                              f"has {k_tiles} tiles: clusters of two along M share B's tile by TMA multicast "
                              f"(PERSISTENT_MISALIGNED_CLUSTER: 11184 x 1880 x 640 0.84 of cuBLAS against 0.71)")
        return ({**big, "tile": BIG_COLUMNS, "persistent": True, "cluster": PERSISTENT_MISALIGNED_CLUSTER},
                f"{rule}; misaligned rows: persistent in clusters of two", reasons)
    return {**big, "tile": BIG_COLUMNS, "persistent": True, "index_type": index}, rule, _reasons(
        "four waves or more", "128 x 256, 2 warp groups of 64 x 256",
        f"persistent: {sms} resident blocks walk the tiles in grouped order", store, index_why)


def _wide_big_tiles(problem: MatmulProblem, k_tiles: int | None) -> tuple[tuple[Any, ...], ...]:
    """``WIDE_BIG_TILES`` for a tile per block, without 256 x 160 where B's rows are not 128-byte multiples and K has
    ``MISALIGNED_CLUSTER_K_TILES`` tiles or more: its N-major B tile is 5 boxes of 32 columns (64-byte rows), each
    misaligned row of a box touching three 32-byte L2 sectors for 64 bytes. In the bench results (H100, 2026-11-26
    and 27) 256 x 160 ran below the best other tile per block on 94 of 97 such problems. Against the rules' pick before
    (256 x 160 in clusters of two along N; H100, 2026-11-27, bench/probes/matmul_probe.py --rotate, the same rounds):
    4136 x 3624 x 13112 0.88 of cuBLAS against 0.72 (256 x 128 in clusters along N), 7040 x 1416 x 6856 0.83 against
    0.66 (256 x 192), 3000 x 5000 x 1000 0.84 against 0.85 (256 x 128, K of 15 tiles). (``_misaligned_block`` keeps
    it: there its clusters of two along M share B's tile, halving those reads, and it ran faster, as at 8984 x 2872
    x 5480.)"""
    if k_tiles is not None and k_tiles >= MISALIGNED_CLUSTER_K_TILES and _misaligned_b(problem):
        return tuple(entry for entry in WIDE_BIG_TILES if entry[0] != (256, 160, 64))
    return WIDE_BIG_TILES


def _block_options(wide: tuple[tuple[Any, ...], ...]) -> tuple[tuple[Any, ...], ...]:
    """The tiles a tile per block of TMA operands weighs: 256 x 128, ``SQUARE_TILES``, ``WAVE_TILES`` and ``wide``
    (``WIDE_BIG_TILES`` or fewer)."""
    return ((BIG, 2, 7.1), *SQUARE_TILES, *WAVE_TILES, *wide)


def _misaligned_block_options() -> tuple[tuple[Any, ...], ...]:
    """The tiles per block ``_misaligned_block`` weighs, each in ``PERSISTENT_MISALIGNED_CLUSTER``."""
    return tuple((*entry, PERSISTENT_MISALIGNED_CLUSTER) for entry in _block_options(WIDE_BIG_TILES))


def _misaligned_block(problem: MatmulProblem, sms: int,
                      k_tiles: int | None) -> tuple[tuple[Any, ...], float] | None:
    """Where the misaligned persistent 128 x 256 (``_misaligned_persistent``) leaves its last wave part idle: the
    tile per block of ``_misaligned_block_options`` with the least predicted time (``_predicted``, the rows of tiles
    padded to whole clusters) and its ratio to the persistent kernel's (``PERSISTENT_TILE_OVERHEAD``, in its
    clusters), where that ratio is at most ``MISALIGNED_BLOCK_MARGIN`` and K has at most
    ``MISALIGNED_BLOCK_K_TILES`` tiles; None elsewhere."""
    if k_tiles is None or k_tiles > MISALIGNED_BLOCK_K_TILES:
        return None
    persistent = _predicted(problem, sms, (BIG_COLUMNS, 2, 7.1, PERSISTENT_MISALIGNED_CLUSTER),
                            overhead=PERSISTENT_TILE_OVERHEAD)
    best = _fastest(problem, sms, _misaligned_block_options())
    ratio = _predicted(problem, sms, best) / persistent
    return (best, ratio) if ratio <= MISALIGNED_BLOCK_MARGIN else None


def _misaligned_persistent(problem: MatmulProblem) -> bool:
    """From four waves, an operand's rows not 128-byte multiples, no epilogue input: the persistent 128 x 256 in
    clusters of two (``PERSISTENT_MISALIGNED_CLUSTER``), at any K."""
    return (misaligned_rows(problem) and _multicast_possible(problem) and problem.tma_store_possible
            and _no_epilogue_input(problem))


def _no_epilogue_input(problem: MatmulProblem) -> bool:
    """The epilogue reads no input: no [M, N] tile and nothing broadcast (a bias)."""
    return not problem.loaded_tiles and not problem.broadcast


def _plain(problem: MatmulProblem) -> bool:
    """A plain product: no epilogue input and no epilogue math (casts only), one output."""
    return _no_epilogue_input(problem) and problem.epilogue_ops == 0 and problem.outputs == 1


def misaligned_rows(problem: MatmulProblem) -> bool:
    """Whether an operand's rows (its contiguous extent) are not a multiple of 128 bytes: a 128-byte TMA box row
    then straddles five 32-byte L2 sectors instead of four, a quarter more L2 traffic for the same tile."""
    return any(_misaligned(problem, load) for load in problem.loads)


def _misaligned_b(problem: MatmulProblem) -> bool:
    """Whether B's rows (its contiguous extent) are not a multiple of 128 bytes (``misaligned_rows`` for B alone)."""
    return _misaligned(problem, problem.loads[1])


def _misaligned(problem: MatmulProblem, load: OperandLoad) -> bool:
    """Whether ``load``'s rows are known and not a multiple of ``MISALIGNED_ROW_BYTES``."""
    return load.extent is not None and load.extent * problem.dtype.size % MISALIGNED_ROW_BYTES != 0


def _multicast_possible(problem: MatmulProblem) -> bool:
    """Whether the rules may suggest a cluster: both operands TMA-loaded (the multicast goes through the TMA
    pipeline), M and N known. An epilogue input is no obstacle: on the H100 at 8192^3, clusters of two ran
    ``2 a @ b + 0.5 C`` at 0.97 of torch.addmm (the persistent kernel: 0.56) and ``relu(a @ b + bias)`` at 0.90 of
    cuBLASLt's fused epilogue (persistent: 0.80)."""
    return problem.tma_operands and problem.m is not None and problem.n is not None


def _streamed_b_cluster(problem: MatmulProblem, tile: tuple[int, int, int],
                        k_tiles: int | None) -> tuple[int, int] | None:
    """The cluster of a tile per block of ``tile`` where B streams from DRAM (``STREAMED_B_M``): M of at most
    ``STREAMED_B_M`` in two rows of tiles or more, a B of more than half the target's L2, a K of at least
    ``CLUSTER_K_TILES`` tiles, both operands TMA-loaded, no batch and no epilogue input; (2, 1) for even rows, else
    (1, 2) for even columns, else (2, 1). None where it does not apply."""
    rows, cols = problem.row_tiles(tile), problem.col_tiles(tile)
    if (rows is None or cols is None or rows < 2 or problem.m > STREAMED_B_M  # type: ignore[operator]
            or k_tiles is None or k_tiles < CLUSTER_K_TILES or not _multicast_possible(problem) or problem.loaded
            or problem.batch_axes
            or problem.k * problem.n * problem.dtype.size <= current_target().l2_bytes // 2):  # type: ignore[operator]
        return None
    return (1, 2) if rows % 2 and cols % 2 == 0 else (2, 1)


def _span_tile(problem: MatmulProblem, sms: int) -> Span | None:
    """The ``Span`` where one tile spans a skinny side. N of at most ``NARROW_N`` columns (``_narrow_tile``): 64 x 64
    or 128 x 64, rows of any 16-byte multiple. M of at most ``SHORT_M`` rows in a wave of 64-column tiles
    (``_short_tile``): all of M by 64, swapped. Else ``SPAN_ROWS_WIDE``: M of ``SPAN_FILL`` x 192 to 192 rows (over a
    wave of 64-column tiles) with a B larger than half the L2 (rows of any 16-byte multiple), or N of 192 columns
    with such an A (rows of 128-byte multiples), its blocks at least half a wave and at most a wave; both operands
    TMA-loaded, K known, no batch, no epilogue input and a TMA store. None elsewhere."""
    span = _narrow_tile(problem, sms) or _short_tile(problem, sms)
    if span is not None:
        return span
    if (None in (problem.m, problem.n, problem.k) or not problem.tma_operands or problem.batch_axes
            or not problem.tma_store_possible or not _no_epilogue_input(problem)):
        return None
    half_l2, size = current_target().l2_bytes // 2, problem.dtype.size
    m, n, k = problem.m, problem.n, problem.k
    if SPAN_FILL * SPAN_ROWS[0] <= m <= SPAN_ROWS[0] and k * n * size > half_l2:  # type: ignore[operator]
        # rows of any 16-byte multiple (H100: 183 x 10552 x 13824, B's rows 21104 bytes, 192 x 128 1.02 of cuBLAS
        # against 0.68 for 64 x 256 in clusters of two)
        tile = SPAN_ROWS_WIDE             # where 192 x 64's blocks fit a wave, the short tile took the problem
        count = problem.tiles(tile)
        assert count is not None
        if count < sms / 2:
            return None                   # under half a wave: smaller tiles in more rows keep more SMs busy
        return Span(tile, 1, (f"{tile[0]} x {tile[1]} on one compute warp group (3 x 64 rows): M = {m} in one row "
                              f"of tiles reads each tile of B ({k * n * size >> 20} MiB, streamed from DRAM) once; "
                              f"{count} blocks (192 x 8192 x 8192: 0.98-1.01 of cuBLAS against 0.91 for 64 x 256)"))
    if n == SPAN_COLUMNS[1] and m * k * size > half_l2 and not misaligned_rows(problem):  # type: ignore[operator]
        rows = problem.row_tiles(SPAN_COLUMNS)
        assert rows is not None
        if not sms / 2 <= rows <= sms:
            return None       # under half a wave, or over one (128 x 192 on two warp groups: the other rules weigh it)
        return Span(SPAN_COLUMNS, 1, (f"64 x 192 on one compute warp group: N = {n} in one column of tiles reads each "
                                      f"tile of A ({m * k * size >> 20} MiB, streamed from DRAM) once; {rows} blocks "
                                      f"(8192 x 192 x 8192: 0.99 of cuBLAS against 0.68 for 64 x 256)"))
    return None


def _narrow_tile(problem: MatmulProblem, sms: int) -> Span | None:
    """N of at most ``NARROW_N`` columns (the caller's problems are under one wave of big tiles): ``NARROW_TILE`` on
    one compute warp group where its rows of tiles fit a wave, else ``NARROW_TILE_WIDE`` on two; both operands
    TMA-loaded, K known, no batch, no epilogue input and a TMA store. None elsewhere."""
    n = problem.n
    if (None in (problem.m, n, problem.k) or n > NARROW_N or not problem.tma_operands  # type: ignore[operator]
            or problem.batch_axes or not problem.tma_store_possible or not _no_epilogue_input(problem)):
        return None
    rows = problem.row_tiles(NARROW_TILE)
    assert rows is not None
    tile, groups = (NARROW_TILE, 1) if rows <= sms else (NARROW_TILE_WIDE, 2)
    return Span(tile, groups, (f"{tile[0]} x {tile[1]} on {groups} compute warp group{'s' if groups > 1 else ''}: "
                               f"N = {problem.n} in one column of tiles no wider than 64 (a 128-wide tile computes and "
                               f"stages padded columns); {rows} rows of 64-row tiles "
                               f"{'fit' if groups == 1 else 'exceed'} a wave of {sms} (8192 x 48 x 8192: 0.96 of "
                               f"cuBLAS against 0.69 for 64 x 128)"))


def short_tile(m: int) -> tuple[int, int, int]:
    """The swapped tile of ``_short_tile`` for M rows: all of them (in ``SHORT_ROW_STEP``s) by ``SHORT_TILE_N``."""
    return (-(-m // SHORT_ROW_STEP) * SHORT_ROW_STEP, SHORT_TILE_N, SHORT_TILE_K)


def _short_tile(problem: MatmulProblem, sms: int) -> Span | None:
    """M of at most ``SHORT_M`` rows (the caller's problems are under one wave of big tiles) whose 64-column tiles fit
    a wave: ``short_tile(M)`` swapped (``swap_ab``: the instruction's 64 rows along N, its N all of M) on one compute
    warp group; both operands TMA-loaded, K known, no batch, no epilogue input, a TMA store and a tile the layouts
    take. None elsewhere."""
    m, n = problem.m, problem.n
    if (None in (m, n, problem.k) or m > SHORT_M or not problem.tma_operands  # type: ignore[operator]
            or problem.batch_axes or not problem.tma_store_possible or not _no_epilogue_input(problem)):
        return None
    tile = short_tile(m)  # type: ignore[arg-type]
    columns = problem.col_tiles(tile)
    assert columns is not None
    if columns > sms:
        return None                     # over a wave: the other rules (16 x 28672 x 4096: 1.02 of cuBLAS)
    split = short_split(problem, sms, columns)
    if m > SHORT_M_STREAMED and columns * split < sms / 2:  # type: ignore[operator]
        return None                     # under half a wave: the other rules' more rows of tiles (238 x 1200 x 5424)
    try:
        MatmulParams(tile=tile, compute_warp_groups=1, register_split=register_split(1), swap_ab=True).validate(
            problem.dtype, problem.loaded_tiles, problem.layout, problem.loads, outputs=problem.outputs)
    except ScheduleError:
        return None                     # a layout the swapped tile does not take
    return Span(tile, 1, (f"{tile[0]} x {tile[1]} swapped on one compute warp group: M = {m} in one row of tiles "
                          f"(the instruction's N) reads each tile of B once, without the padded rows of a 64-row "
                          f"instruction; {columns} columns of 64-column tiles fit a wave of {sms} (16 x 4096 x 14336: "
                          f"1.00 of cuBLAS against 0.75 for 64 x 128)"), swap_ab=True, split_k=split)


def short_split(problem: MatmulProblem, sms: int, columns: int) -> int:
    """Split-K of the short tile's ``columns`` blocks: the most splits (up to ``MAX_SPLIT_K``) that keep the blocks
    within one wave of ``sms`` and at least ``SHORT_MIN_SPLIT_K_TILES`` K tiles in each split; 1 where none does."""
    k_tiles = problem.k_tiles(SHORT_TILE_K)
    assert k_tiles is not None
    return max(1, min(MAX_SPLIT_K, k_tiles // SHORT_MIN_SPLIT_K_TILES, sms // columns))


def _misaligned_cluster(problem: MatmulProblem, tile: tuple[int, int, int],
                        k_tiles: int | None) -> tuple[int, int] | None:
    """The cluster for a tile per block where misaligned rows make the big tiles L2-bound: two blocks sharing the
    operand tile that is larger (or B's, square), along the side with at least two tiles; None where it does not
    apply (aligned rows, a short K, an operand the compute warp groups load, an epilogue input)."""
    if (k_tiles is None or k_tiles < MISALIGNED_CLUSTER_K_TILES or not misaligned_rows(problem)
            or not _multicast_possible(problem)):
        return None
    share_a = tile[0] > tile[1]                         # a 256 x 128 tile: A's 256 x 64 is the bigger load
    along, extent = (tile[1], problem.n) if share_a else (tile[0], problem.m)
    if extent < 2 * along:
        return None
    return (1, 2) if share_a else (2, 1)


GROUP_M = 8        # rows of tiles walked per column of B, persistent or a grouped grid (as Triton's matmul groups them)
# a grouped grid where a row-major wave would stream at least this fraction of the machine balance from DRAM
GROUPED_STREAM = 0.8
GROUPED_GRID_WHY = ("a block per tile in grouped order (group_m row tiles down a column of B): in row-major order a "
                    "wave's blocks read so many of B's tiles that, the operands being larger than L2, they stream "
                    "from DRAM at {stream:.2f} of the machine balance (row_major_stream); grouped they read fewer, "
                    "reused by the next rows (H100: B^T 4096 x 14336 x 4096 0.90 -> 0.95 of cuBLAS, 512 x 16384 x 4096 "
                    "0.89 -> 0.96)")

GROUPED_LOADS_WHY = ("a block per tile in grouped order (group_m row tiles down a column of B): the compute warp groups "
                     "load an operand themselves and wait for their copies, which come sooner from L2 where the "
                     "blocks running at once share tiles (H100: 4096 x 4096 x 1001 2.29 -> 2.52 of cuBLAS)")


def row_major_stream(problem: MatmulProblem, tile: tuple[int, int, int], sms: int) -> float | None:
    """The operand bytes per flop a wave of ``sms`` blocks reads in row-major order (``[Mo (BIDy), No (BIDx)]``),
    as a fraction of the target's DRAM bytes per tensor-core flop: per K element the wave reads ``r`` row tiles
    of A (``TM`` rows each) and ``c`` column tiles of B (``TN`` columns), ``r = ceil(wave / No)``, ``c =
    min(wave, No)``, for ``wave x 2 TM TN`` flops. Where the operands are larger than L2 a wave's tiles are not
    there for the next wave, so they come from DRAM: above 1 the wave waits on memory. None: a size unknown."""
    rows, cols, tiles = problem.row_tiles(tile), problem.col_tiles(tile), problem.tiles(tile)
    if rows is None or cols is None or tiles is None or problem.k is None:
        return None
    tm, tn, _ = tile
    wave = min(sms, tiles)
    r, c = min(rows, -(-wave // cols)), min(cols, wave)
    per_flop = (r * tm + c * tn) * problem.dtype.size / (wave * 2 * tm * tn)
    return per_flop / current_target().dram_bytes_per_flop


def grid_group(problem: MatmulProblem, fields: dict[str, Any], sms: int | None = None) -> int | None:
    """The ``group_m`` of a grouped grid (``MatmulParams.grouped_grid``) for a kernel of ``fields``: a block per tile,
    not stream-K, no cluster, more tiles than the ``sms`` (default: the target's) run at once (one wave's blocks all
    run together, whatever their order: 1024^3 in 64 x 128 tiles, one wave, ran 0.88 of cuBLAS grouped against 0.92
    in row-major order on an H100), operands larger than L2 that a row-major wave would stream from DRAM at
    ``GROUPED_STREAM`` of the machine balance or more (``row_major_stream``: where it streams less, grouping cost
    1-3 % on an H100, 12288 x 4096 x 1536 0.91 against 0.93, 1792 x 7168 x 2048 0.93 against 0.95); the largest
    group of ``GROUP_M`` row tiles, or of all of them where there are fewer (the last group holds the rows left).
    An operand the compute warp groups load (rows TMA cannot copy) is grouped whatever the stream: its copies wait
    for their own latency, shorter from L2 (4096 x 4096 x 1001 2.52 of cuBLAS grouped against 2.29; its cp.async
    kin unchanged). None otherwise, and under 2 rows of tiles."""
    if fields.get("persistent") or fields.get("stream_k") or fields.get("cluster", (1, 1)) != (1, 1):
        return None
    rows, tiles = problem.row_tiles(fields["tile"]), problem.tiles(fields["tile"])
    sms = current_target().sm_count if sms is None else sms
    if rows is None or tiles is None or tiles * fields.get("split_k", 1) <= sms:
        return None
    stream = row_major_stream(problem, fields["tile"], sms)      # None: K unknown
    streams = stream is not None and stream >= GROUPED_STREAM and (
        problem.k * (problem.m + problem.n) * problem.dtype.size * problem.batch   # type: ignore[operator]
        > current_target().l2_bytes)
    if not streams and problem.tma_operands:
        return None
    group = persistent_group_m(problem, fields["tile"])     # the same groups as a persistent walk's
    return group if group is not None and group > 1 else None


def persistent_group_m(problem: MatmulProblem, tile: tuple[int, int, int], cluster: tuple[int, int] = (1, 1),
                       raster: str = "m") -> int | None:
    """The ``group_m`` of a persistent kernel of ``tile`` in ``cluster``: ``GROUP_M`` rows of tiles (columns with
    ``raster="n"``) in whole cluster tiles along the raster's direction (``MatmulParams.validate``), fewer where the
    problem has fewer. The walk is exact (``TensorView.merge_grouped``: the last group holds the rows left), so any
    group walks the problem's tiles and no more; the group sets only how many rows share a column of B in L2.
    None when the rows (columns) are unknown.
    H100, 2026-11-27, ratio to cuBLAS in the same rounds: at 9488 x 10472 x 6400 (75 rows of 128 x 256, in clusters of
    two), before the walk was exact, groups of 8 rows walked 80 rows and ran 0.94, groups of 4 or 2 walked 76 and ran
    0.98; the group was then fitted to pad the fewest rows."""
    lines = problem.row_tiles(tile) if raster == "m" else problem.col_tiles(tile)
    if lines is None:
        return None
    along = cluster[0] if raster == "m" else cluster[1]
    return along * max(1, min(GROUP_M // along, -(-lines // along)))


def register_split(compute_warp_groups: int) -> tuple[int, int]:
    """``setmaxnreg`` counts (producer, compute) for a warp-specialized block of ``compute_warp_groups``: the
    producer keeps 40, the compute warp groups share the rest of the SM's registers (at most 232 each)."""
    target = current_target()
    producer, step = 40, target.setmaxnreg_step
    share = (target.registers_per_sm - target.warp_group_size * producer) // (target.warp_group_size
                                                                              * compute_warp_groups)
    return producer, min(232, share // step * step)


def _reasons(rule: str, tile: str, persistent: str, tma_store: str, index_type: str,
             ping_pong: bool = False) -> dict[str, str]:
    """The reasons of the fields one rule decides, each prefixed with the rule's short name."""
    out = {"tile": f"rule {rule}: {tile}", "compute_warp_groups": f"rule {rule}: {tile}",
           "persistent": f"rule {rule}: {persistent}", "tma_store": f"rule {rule}: {tma_store}",
           "index_type": f"rule {rule}: {index_type}"}
    if ping_pong:
        out["ping_pong"] = f"rule {rule}: {persistent}"
    return out


def _depth_cap(params: MatmulParams, problem: MatmulProblem) -> int:
    """The deepest pipeline ``_depth`` gives: the tile's ``DEPTH_CAP``, but for ping-pong at a K of at most
    ``PING_PONG_PLAIN_K_TILES`` tiles and ``PERSISTENT_WAVES`` waves of tiles or more two tiles' K loops (one per warp
    group: its producer fills stages from the next tiles), at least the cap and at most ``MAX_USEFUL_STAGES``. H100:
    8192 x 8192 x 256 1.01 of cuBLAS with 6 stages against 0.96 with 4; at K = 128 (2 K tiles) 6 stages gained
    nothing (8192 x 8192: 1.06 either way) and lost on the batched 64 x 2048 x 2048 x 128 B^T (0.86 against 1.02);
    under four waves 4 stages ran as fast or faster (2048 x 2048 x 256 0.98 against 0.93). Ping-pong with K of more
    than ``PING_PONG_PLAIN_K_TILES`` tiles: at least ``PING_PONG_WAVE_STAGES``."""
    cap = DEPTH_CAP.get(params.tile, MAX_USEFUL_STAGES)
    k_tiles, tiles = problem.k_tiles(params.tile[2]), problem.tiles(params.tile)
    if (params.ping_pong and k_tiles is not None and k_tiles <= PING_PONG_PLAIN_K_TILES and tiles is not None
            and tiles >= PERSISTENT_WAVES * params.blocks):
        return max(cap, min(MAX_USEFUL_STAGES, 2 * k_tiles))    # both warp groups' next tiles in flight
    if _ping_pong_past_plain_k(params, problem):
        # 6 stages against 4, H100 2026-11-27, the same rounds: 896 x 9472 x 5376 0.96 of cuBLAS against 0.83,
        # 1792 x 3584 x 1536 0.97 against 0.90, 8704 x 640 x 6272 0.98 against 0.89, 12288 x 512 x 8192 0.90 against
        # 0.82 (faster on 8 of 9 problems; 4928 x 1216 x 2176 0.78 against 0.82)
        return max(cap, PING_PONG_WAVE_STAGES)
    return cap


def _ping_pong_past_plain_k(params: MatmulParams, problem: MatmulProblem) -> bool:
    """Ping-pong with K of more than ``PING_PONG_PLAIN_K_TILES`` tiles: ``PING_PONG_WAVE_STAGES`` deep at least."""
    k_tiles = problem.k_tiles(params.tile[2])
    return params.ping_pong and k_tiles is not None and k_tiles > PING_PONG_PLAIN_K_TILES


def _depth_reason(params: MatmulParams, problem: MatmulProblem) -> str:
    """Why ``_depth`` gave ``params.stages``: shared memory, the tile's cap, or the K tiles."""
    cap = _depth_cap(params, problem)
    k_tiles = problem.k_tiles(params.tile[2])
    limit = current_target().smem_per_block
    if k_tiles is not None and not params.persistent and params.stages >= max(2, k_tiles) and k_tiles < cap:
        return f"depth: no deeper than the K tiles ({k_tiles} of {params.tile[2]}) of a kernel that is not persistent"
    if params.stages >= cap:
        if _ping_pong_past_plain_k(params, problem):
            return (f"depth: ping-pong with K of more than {PING_PONG_PLAIN_K_TILES} tiles, {cap} stages "
                    f"(PING_PONG_WAVE_STAGES: faster than 4 on 8 of 9 problems measured)")
        if cap != MAX_USEFUL_STAGES:
            return f"depth: the cap measured for this tile, {cap} (deeper ran slower)"
        return f"depth: the deepest useful pipeline, {cap} stages (MAX_USEFUL_STAGES)"
    used = params.smem_bytes(problem.dtype, problem.loaded_tiles, problem.layout, problem.loads,
                             outputs=problem.outputs)
    lifted = ("" if cap == DEPTH_CAP.get(params.tile, cap) else
              f"ping-pong with K of more than {PING_PONG_PLAIN_K_TILES} tiles (PING_PONG_WAVE_STAGES): "
              if _ping_pong_past_plain_k(params, problem) else
              f"ping-pong at a K of at most {PING_PONG_PLAIN_K_TILES} tiles and {PERSISTENT_WAVES} waves or more, the "
              f"producer filling stages of the next tiles: ")
    return f"depth: {lifted}as deep as shared memory allows ({used} of {limit} bytes at {params.stages} stages)"


def _predicted_text(problem: MatmulProblem, sms: int, entries: tuple[tuple[Any, ...], ...]) -> str:
    """Each entry's ``_predicted`` time in millions of its units, for the reasons' text: ``128x192: 0.39, 128x160 in
    2x2: 0.34``."""
    return ", ".join(f"{_entry_name(entry)}: {_predicted(problem, sms, entry) / 1e6:.2f}" for entry in entries)


def compute_loaded_arrangement(problem: MatmulProblem, chosen: dict[str, Any] | None = None) -> dict[str, Any]:
    """An operand TMA cannot load (its rows are not 16-byte multiples: ``MatmulProblem.loads``) is loaded by the
    compute warp groups themselves, with cp.async or plain copies: a Pipelined kernel, one tile per block
    (docs/matmul.md, "Any K and any row stride"); a tile of three compute warp groups becomes 256 x 128 (the
    copies are shared by two). Its index arithmetic is 32-bit where the problem fits (the copies compute an
    address per vector: 64-bit index math halved the speed of 4096 x 4096 x 1001 on an H200). Nothing changes
    when TMA loads both."""
    if problem.tma_operands:
        return {}
    out: dict[str, Any] = {"warp_specialized": False, "persistent": False, "ping_pong": False,
                           "register_split": None, "stages": 3, "cluster": (1, 1),
                           "index_type": DataType.Int32 if _fits_int32(problem) else DataType.Int64}
    if chosen is not None and chosen.get("compute_warp_groups", 2) > 2:
        out.update(tile=BIG, compute_warp_groups=2)
    return out


def compute_loaded_tile(problem: MatmulProblem, tile: tuple[int, int, int]) -> tuple[int, int, int]:
    """The big tile oriented so the compute-loaded operand's side is the short one: 128 x 256 when A is loaded
    by the compute warp groups (half the rows of A per block that 256 x 128 copies), 256 x 128 when only B is.
    Other tiles are kept. Measured on an H200 at 4096 x 4096 x 1001 (A compute-loaded): 256 x 128 ran at 0.23 of
    cuBLAS, 128 x 256 at 0.85."""
    if problem.tma_operands or tile not in ((128, 256, 64), (256, 128, 64)):
        return tile
    return (128, 256, 64) if not problem.loads[0].tma else (256, 128, 64)


def split_k_for(problem: MatmulProblem, sms: int, tile: tuple[int, int, int],
                rivals: tuple[tuple[Any, ...], ...] = FEW_TILES, rate: float | None = None) -> int:
    """Split-K for a problem of fewer ``tile`` output tiles than ``sms``: of the splits that keep at least
    ``MIN_SPLIT_K_TILES`` K tiles each, the one of the least predicted time, ``ceil(tiles x split / sms)`` waves of
    a split's work (``FEW_TILES``' rate of ``tile``, ``SPLIT_K_OVERHEAD`` for the partials), the fewer splits on a
    tie, when it beats the best smaller tile's (of ``rivals``); 1 (no split) otherwise or when the sizes are unknown. More than one
    wave of blocks may pay: 72 tiles in 3 splits are 2 waves of a third of the work each."""
    tiles, k_tiles = problem.tiles(tile), problem.k_tiles(tile[2])
    if tiles is None or k_tiles is None or problem.batch_axes or tiles >= sms:
        return 1
    rate = next(r for t, _, r in FEW_TILES if t == tile) if rate is None else rate
    best, best_time = 1, None
    for split in range(2, min(MAX_SPLIT_K, k_tiles // MIN_SPLIT_K_TILES) + 1):
        predicted = _predicted(problem, sms, (tile, 2, rate), split) * SPLIT_K_OVERHEAD
        if best_time is None or predicted < best_time * (1 - 1e-9):
            best, best_time = split, predicted
    if best_time is None:
        return 1
    return best if best_time < min(_predicted(problem, sms, entry) for entry in rivals) else 1


SPLIT_K_TILE_WHY = {
    BIG_COLUMNS: "128 x 256, 2 warp groups",
    BIG: ("256 x 128, 2 warp groups: B's rows are not 128-byte multiples, and its tile of 128 columns reads half as much "
          "of B per flop as 128 x 256's (split_k_tile)"),
    SPLIT_K_SQUARE: ("128 x 128, 2 warp groups: its splits predicted faster than the big tile's, whose splits leave "
                     "SMs idle (split_k_tile)"),
}


def split_k_tile(problem: MatmulProblem, sms: int, rivals: tuple[tuple[Any, ...], ...]) -> tuple[tuple[int, int, int], int]:
    """Split-K's tile and splits: ``(128 x 256, 1)`` where split-K of 128 x 256 does not beat ``rivals``
    (``split_k_for``); where it does, of its splits and those of the tiles below, the least predicted time (``_predicted``
    with each tile's rate), earlier on a tie:

    - 256 x 128 where B's rows are not 128-byte multiples (at 128 x 256's rate): its tile of 128 columns reads half as
      much of B per flop, and a misaligned row's boxes straddle an extra L2 sector. H100, 2026-11-27, warp-specialized,
      the same rounds: 1000 x 1000 x 20000 0.94 of cuBLAS against 0.81, 768 x 1512 x 20000 1.04 against 1.00, 1024 x
      1000 x 24000 0.94 against 0.92; with only A's rows misaligned (1000 x 1024 x 20000) 128 x 256 stayed ahead, 0.94
      against 0.92, and with both aligned 256 x 128 tied or lost 1-3 % (1024 x 1024 x 32768, 2048 x 512 x 20000, 512 x
      2048 x 16384).
    - 128 x 128 (``SPLIT_K_SQUARE``, its own rate): faster where the big tile's splits are capped (by K or
      ``MAX_SPLIT_K``) short of a wave. Weighed against the big tile's splits only, never against the rivals without a
      split (128 x 8192 x 8192 in 2 splits of it ran 0.86 against 0.95 for 64 x 128 in clusters of two). H100, the same
      rounds: 96 x 4096 x 16384 0.94 against 0.90 (4 splits of 32 tiles against 4 of 16), 128 x 2048 x 32768 0.91
      against 0.86 (8 of 16 against 8 of 8); predicted slower and slower where not taken: 1024 x 1024 x 32768 0.73
      against 0.94, 200 x 3000 x 16384 0.78 against 0.86."""
    big_rate = FEW_TILES[0][2]
    split = split_k_for(problem, sms, BIG_COLUMNS, rivals)
    if split < 2:
        return BIG_COLUMNS, 1
    square_rate = next(r for t, _, r in FEW_TILES if t == SPLIT_K_SQUARE)
    options = [(BIG, big_rate)] if _misaligned_b(problem) else []    # first: it takes a tie
    options += [(BIG_COLUMNS, big_rate), (SPLIT_K_SQUARE, square_rate)]
    chosen = []
    for tile, rate in options:
        splits = split if tile == BIG_COLUMNS else split_k_for(problem, sms, tile, rivals, rate=rate)
        if splits > 1:
            chosen.append((_predicted(problem, sms, (tile, 2, rate), splits), tile, splits))
    _, tile, splits = min(chosen, key=lambda c: c[0])     # min keeps the first of equal times
    return tile, splits


def _fits_int32(problem: MatmulProblem) -> bool:
    m, n, k, batch = problem.m, problem.n, problem.k, problem.batch
    return None not in (m, n, k, batch) and batch * max(m * k, k * n, m * n) <= INT32_INDEX_MAX  # type: ignore[operator]


def _predicted(problem: MatmulProblem, sms: int, entry: tuple[Any, ...], split: int = 1,
               overhead: float = TILE_OVERHEAD) -> float:
    """A tile's predicted time (relative): waves x (a tile's work / its rate + ``overhead``), the work
    ``TM x TN x`` K tiles (of a split's range); the tiles cover the problem rounded up to whole tiles, so a tile much
    wider than N pays for its empty part. An entry ``(tile, groups, rate, cluster)`` runs its tiles padded to whole
    clusters, a wave the blocks resident in such clusters (``_wave_blocks``). A persistent kernel's grouped walk
    covers the problem's tiles (``persistent_group_m``). Without a known K, the work alone (the overhead cannot be
    weighed). Infinite where not one cluster of
    the entry's is resident on ``sms`` SMs."""
    tile, _, rate, *rest = entry
    cluster = rest[0] if rest else (1, 1)
    tiles = problem.tiles(tile)
    assert tiles is not None
    if cluster != (1, 1):
        rows, cols = problem.row_tiles(tile), problem.col_tiles(tile)
        assert rows is not None and cols is not None
        tiles = tiles // (rows * cols) * (-(-rows // cluster[0]) * cluster[0]) * (-(-cols // cluster[1]) * cluster[1])
    k_tiles = problem.k_tiles(tile[2])
    resident = _wave_blocks(sms, cluster[0] * cluster[1])
    if resident == 0:
        return float("inf")          # a GPU of fewer SMs than the cluster's blocks (or GPCs) runs none of them
    waves = -(-tiles * split // resident)
    if k_tiles is None:
        return waves * tile[0] * tile[1] / split / rate
    return waves * (tile[0] * tile[1] * -(-k_tiles // split) / rate + overhead)


def _persistent_tile_problem(problem: MatmulProblem, *, vectors: bool = False) -> bool:
    """A problem of the kind ``PERSISTENT_TILE`` was measured on: TMA operands whose rows are 128-byte multiples, A
    K-major, one 16-bit output by the TMA store and no epilogue input, batched or not; with ``vectors``, a bias
    (vectors the epilogue broadcasts, TMA-loaded) may be read, but still no [M, N] input. (A^T at 4096^3 ran 0.92 of
    cuBLAS against 0.97 a tile per block, H100 2026-11-27; B^T 0.96 either way.)"""
    inputs = (not problem.loaded and problem.broadcast == problem.vectors) if vectors else _no_epilogue_input(problem)
    return (problem.tma_operands and not misaligned_rows(problem) and not problem.layout.a_mn_major
            and inputs and problem.outputs == 1 and problem.tma_store_possible)


def _persistent_tile_time(problem: MatmulProblem, sms: int,
                          k_tiles: int | None) -> tuple[float, tuple[Any, ...]] | None:
    """The predicted time of the persistent tile (``_predicted`` over the tiles it walks, ``grouped``, with
    ``PERSISTENT_TILE_OVERHEAD``; an epilogue's math is not charged: it costs a tile per block the same) and its
    entry, the fastest of ``PERSISTENT_TILES`` and ``WAVE_PERSISTENT_TILES`` (the first on a tie; 256 x 128 alone
    with a bias, as measured), where K has at least ``PERSISTENT_K_TILES[0]`` tiles (past the range's end the rules
    take it where it is predicted no slower: ``PERSISTENT_LONG_K_MARGIN``), there are ``PERSISTENT_TILE_WAVES`` waves
    of 256 x 128 tiles or more and the problem is of its kind (``_persistent_tile_problem``, a bias allowed); None
    elsewhere."""
    low = PERSISTENT_K_TILES[0]
    tiles = problem.tiles(BIG)
    if (k_tiles is None or k_tiles < low or tiles is None or tiles < PERSISTENT_TILE_WAVES * sms
            or not _persistent_tile_problem(problem, vectors=True)):
        return None
    found = []
    # 128 x 256 measured on plain products only: with a bias, 256 x 128 (its vectors per tile as measured)
    for entry in PERSISTENT_TILES + WAVE_PERSISTENT_TILES if _no_epilogue_input(problem) else PERSISTENT_TILES[:1]:
        found.append((_predicted(problem, sms, entry, overhead=PERSISTENT_TILE_OVERHEAD), entry))
    return min(found, key=lambda f: f[0])


def _ping_pong_wave_time(problem: MatmulProblem, sms: int, k_tiles: int | None) -> float | None:
    """The predicted time of ping-pong 128 x 128 (``PING_PONG_WAVE_TILE``, a persistent tile's overhead; the waves
    count the problem's tiles, which its walk covers) where K has
    ``PING_PONG_WAVE_K_TILES`` tiles, there are ``PING_PONG_WAVE_WAVES`` waves of its tiles or more, the problem is of
    ``PERSISTENT_TILE``'s kind (``_persistent_tile_problem``, no epilogue input), unbatched, and every tensor takes
    32-bit indices; None elsewhere."""
    low, high = PING_PONG_WAVE_K_TILES
    tiles, rows, cols = problem.tiles(PING_PONG), problem.row_tiles(PING_PONG), problem.col_tiles(PING_PONG)
    if (k_tiles is None or not low <= k_tiles <= high or tiles is None or rows is None or cols is None
            or tiles < PING_PONG_WAVE_WAVES * sms or problem.batch_axes or not _fits_int32(problem)
            or not _persistent_tile_problem(problem)):
        return None
    return _predicted(problem, sms, PING_PONG_WAVE_TILE, overhead=PERSISTENT_TILE_OVERHEAD)


def _persistent_tile(big: dict[str, Any], store: str, tile_why: str, rule: str,
                     entry: tuple[Any, ...] = PERSISTENT_TILE) -> tuple[dict[str, Any], str, dict[str, str]]:
    """The arrangement of a persistent tile (``PERSISTENT_TILES``; ``PERSISTENT_TILE`` by default): 256 x 128 or
    128 x 256 persistent with 64-bit indices (its sub-tiled epilogue and 4 stages follow from ``epilogue_sub_tile``
    and ``_depth``)."""
    tile, groups = entry[:2]
    chosen = {**big, "tile": tile, "compute_warp_groups": groups, "persistent": True,
              "index_type": DataType.Int64, "register_split": register_split(groups)}
    shape = f"{tile[0]} x {tile[1]}, {groups} warp groups of {tile[0] // groups} x {tile[1]}"
    return chosen, rule, _reasons(
        "persistent tile", f"{shape}: {tile_why}",
        "persistent: the resident blocks walk the tiles, the producer loading the next tile's stages under the "
        "epilogue and no block launched per tile (8192 x 8192 x 2048: 1.00 of cuBLAS against 0.94 a tile per block)",
        store, "64-bit indices: with 32-bit ones this kernel ran 0.80 of cuBLAS at 8192 x 8192 x 2048 against 1.00 "
        "(ptxas keeps its wgmma descriptors in vector registers: dispatch stalls)")


def _carries(params: MatmulParams) -> bool:
    """Whether the rules carry ``params``' ring of staging sub-tiles across tiles (``store_wait="carried"``): the
    persistent cooperative tile of ``CARRIED_STORE_ROWS`` rows, sub-tiled, with the TMA store."""
    return (params.persistent and not params.ping_pong and params.tma_store and params.epilogue_tile is not None
            and params.tile[0] == CARRIED_STORE_ROWS)


def _wave_blocks(sms: int, size: int) -> int:
    """Blocks of one tile each resident at once on ``sms`` SMs in clusters of ``size`` (``Target.cluster_blocks``
    of the target with that SM count)."""
    return current_target().with_sm_count(sms).cluster_blocks(size)


def _skinny(problem: MatmulProblem) -> bool:
    """M of at most ``STREAMED_B_M`` rows or N of at most 256 columns (``SKINNY_TILE``'s problems)."""
    return problem.m <= STREAMED_B_M or problem.n <= SKINNY_TILE[1]  # type: ignore[operator]


def _two_d_clusters(problem: MatmulProblem, k_tiles: int | None) -> bool:
    """Whether ``CLUSTER_TILES`` may run the problem: K of at least ``CLUSTER_K_TILES`` tiles, both operands
    TMA-loaded and M and N known (``_multicast_possible``), no epilogue input and no batch."""
    return (k_tiles is not None and k_tiles >= CLUSTER_K_TILES and _multicast_possible(problem)
            and not problem.loaded and not problem.batch_axes)


def _entry_name(entry: tuple[Any, ...]) -> str:
    """``128x160`` or, in a cluster, ``128x160 in 2x2``."""
    name = "x".join(map(str, entry[0][:2]))
    return f"{name} in {entry[3][0]}x{entry[3][1]}" if entry[3:] else name


def _fastest(problem: MatmulProblem, sms: int, options: tuple[tuple[Any, ...], ...]) -> tuple[Any, ...]:
    """The entry of ``options`` (``(tile, groups, rate)`` or ``(tile, groups, rate, cluster)``) with the shortest
    predicted time (``_predicted``)."""
    return min(options, key=lambda entry: _predicted(problem, sms, entry))


def _warp_groups_for(tile: Any) -> int:
    """Compute warp groups for a pinned tile: two when its rows split into two 64-row multiples, else one per 64
    rows (64: one, 192: three)."""
    if isinstance(tile, tuple) and tile and isinstance(tile[0], int) and tile[0] % 128 == 0:
        return 2
    if isinstance(tile, tuple) and tile and isinstance(tile[0], int) and tile[0] % 64 == 0:
        return max(1, tile[0] // 64)
    return 1


def _depth(params: MatmulParams, problem: MatmulProblem) -> int:
    """As deep as shared memory allows (at most ``MAX_USEFUL_STAGES``, or the tile's ``DEPTH_CAP``) and, not
    persistent, no deeper than the K tiles: a persistent pipeline fills its stages from the next tile."""
    cap = _depth_cap(params, problem)
    stages = 2
    limit = current_target().smem_per_block
    while stages < cap and replace(params, stages=stages + 1).smem_bytes(
            problem.dtype, problem.loaded_tiles, problem.layout, problem.loads, outputs=problem.outputs) <= limit:
        stages += 1
    k_tiles = problem.k_tiles(params.tile[2])
    floor = _fewest_stages(problem)
    if k_tiles is not None and not params.persistent:
        stages = max(floor, min(stages, -(-k_tiles // params.split_k)))   # a split's K tiles
    return max(stages, floor)


def _fewest_stages(problem: MatmulProblem) -> int:
    """2 with TMA operands; 3 when the compute warp groups load one (``MatmulParams.validate_loads``)."""
    return 2 if problem.tma_operands else 3


def _check_depth(params: MatmulParams, problem: MatmulProblem, pinned: dict[str, Any]) -> None:
    """A pinned depth over the K tiles of a kernel that is not persistent leaves stages that are
    never filled (cuBLASDx refuses it too). A persistent pipeline runs across tiles, so its
    stages fill from the next tile."""
    k_tiles = problem.k_tiles(params.tile[2])
    if "stages" not in pinned or not isinstance(params.stages, int) or k_tiles is None or params.persistent:
        return
    if params.stages <= max(k_tiles, _fewest_stages(problem)):
        return
    raise ScheduleError(f"suggest_matmul_params: stages={params.stages} is deeper than the {k_tiles} K tiles of the "
                        f"problem (K = {problem.k} in tiles of {params.tile[2]}); a pipeline that is not persistent "
                        f"never fills more stages than its K loop has tiles: pin at most {max(k_tiles, 2)} stages, a "
                        f"smaller tile K, or persistent=True")
