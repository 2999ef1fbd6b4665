"""The network stage: input encoding, the AlphaZero ResNet, symmetry augmentation, the inference
wrapper implementing the Evaluator protocol, and the checkpoint format.

Modules: `config` (ModelConfig, presets), `encoding` (the input planes), `model` (AlphaZeroNet,
masked softmax helpers), `augment` (board symmetries), `inference` (NetworkEvaluator,
resolve_device), `checkpoint` (the one reader/writer of checkpoint files).
"""
