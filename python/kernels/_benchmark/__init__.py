"""`kernels benchmark`: discovery of `Benchmark` workloads, timing, statistics, the device's
roofline (copy bandwidth and peak FLOP/s), the run document, its table and charts, and upload.

One module per concern: `discovery` (scripts, classes, workloads), `timers` (device-synchronised
clocks), `stats` (summary of samples), `runner` (the order of calls of one workload), `device`
(machine description, copy bandwidth, peak), `document` (the `kernels-benchmark/1` run document),
`table` (the text report), `charts` (SVG/PNG with matplotlib), `upload` (POST to the Hub),
`command` (the CLI glue)."""
