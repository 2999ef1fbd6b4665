"""Taking a trained network out of PyTorch: `python -m alphazero.export` writes it as ONNX.

`onnx_export` builds and writes the model (and checks it in onnxruntime when that is installed);
`onnx_runtime` runs an exported file behind the search's Evaluator protocol, the reference for
how another program feeds it. docs/frontends.md describes the inputs and outputs.
"""
