"""The ``viz`` command: see the fusion, the loop nest, the kernel IR after any pass and the CUDA."""
