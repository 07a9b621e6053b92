"""compare: two dumps in, 1.2.1's compare_result_*.xlsx (and advisor_*.txt) out.

    msprobe -f pytorch compare -i compare.json -o OUT [-s] [-c] [-f] [--dask ADDRESS]
    msprobe -f mindspore compare -i compare.json -o OUT [-cm [yaml]] [-am [yaml]] [-dm yaml] [-lm [yaml]]
    msprobe -f pytorch merge_result -i OUT -o MERGED -config cfg.yaml

Python API (1.2.1's): msprobe.pytorch.compare / compare_distributed,
msprobe.mindspore.compare.ms_compare.ms_compare / distributed_compare.ms_compare_distributed.
"""
