"""PyTorch API accuracy pre-check (精度预检): run_ut and multi_run_ut replay the API calls of a
dump and judge them (see docs/run_ut.md). Modules, in the order a run uses them:

    cli_args      `msprobe -f pytorch run_ut|multi_run_ut` argument wiring
    run_ut        one process: load the dump, replay each API, write the result files
    multi_run_ut  the same in N worker processes sharing one pair of result files
    settings      the command line checked (files, output folder, resume)
    config        config.yaml / config.json's run_ut section (white/black list, precision)
    api_list      the APIs run_ut may replay (the one place that reads the API list)
    api_runner    one API replayed on the device and the CPU benchmark, then judged
    replay        device/benchmark copies of the arguments, API lookup, autocast, backward
    data_generate the arguments rebuilt from the dump.json record
    tensor_io     dumped tensor files read, -save_error_data files written
    seeding       per-API seeds
    bench_functions  CPU references of torch_npu fused operators
    suspect_replay   compare's float64 replay of a first-divergence suspect on each run's inputs

msprobe.pytorch.api_accuracy_checker keeps the 1.2.1 import and `python -m` paths.
"""
