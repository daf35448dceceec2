"""The ``viz`` command: the fusion, its loop nest, the kernel IR after any pass, the CUDA and its
resources, the load/compute sub-DAGs, shared memory over time and the simulated pipeline."""
