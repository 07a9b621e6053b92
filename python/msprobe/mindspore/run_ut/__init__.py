"""MindSpore API accuracy pre-check (1.2.1 docs 09): run_ut and multi_run_ut replay the Mint,
MintFunctional and listed Tensor APIs of a MindSpore dump against PyTorch on the CPU (see
docs/run_ut.md). Modules:

    run_ut        command line, dump checks, one process writing the result files
    multi_run_ut  the same in one worker process per -d device id
    records       dump.json records parsed as 1.2.1 reads them (its messages)
    replay        the MindSpore and PyTorch calls (forward, backward), judged by _core.runut.MsApiResult
"""
