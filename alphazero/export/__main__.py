"""`python -m alphazero.export`: a network checkpoint as an ONNX model for other programs.

    python -m alphazero.export --out model.onnx                       # the default network (as play/gtp)
    python -m alphazero.export --checkpoint run/checkpoints/best.pt --out best.onnx
    python -m alphazero.export --checkpoint PATH --out model.onnx --verify 0   # skip the check

After writing, the model is run in onnxruntime (when installed) on --verify random positions and
compared with PyTorch; the largest differences are printed and a mismatch beyond the tolerance
exits 1. Inputs, outputs and opset: docs/frontends.md ("ONNX export"). Needs the onnx extra:
pip install -e ".[onnx]".
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from alphazero.console import EXIT_INTERRUPTED
from alphazero.export.onnx_export import (
    OPSET,
    PRIOR_TOLERANCE,
    VALUE_TOLERANCE,
    ExportError,
    compare_with_torch,
    export_onnx,
    load_for_export,
)


def main(argv: list[str] | None = None) -> int:
    from alphazero.play.choosers import DEFAULT_CHECKPOINTS_TEXT, default_checkpoint

    parser = argparse.ArgumentParser(
        prog="python -m alphazero.export",
        description=f"Export a network checkpoint as ONNX (opset {OPSET}, dynamic batch).",
        epilog="examples:\n" + __doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--checkpoint", help="network checkpoint (default: the network play and gtp use: "
                                             f"{DEFAULT_CHECKPOINTS_TEXT})")
    parser.add_argument("--out", required=True, help="the .onnx file to write (atomically)")
    parser.add_argument("--verify", type=int, default=256, metavar="N",
                        help="compare with PyTorch on N random positions after writing (0: skip; default 256)")
    args = parser.parse_args(argv)
    if args.verify < 0:
        parser.error(f"--verify must be >= 0, got {args.verify}")
    checkpoint = args.checkpoint
    if checkpoint is None:
        checkpoint = default_checkpoint()
        if checkpoint is None:
            print(f"error: no --checkpoint given and no default network ({DEFAULT_CHECKPOINTS_TEXT}) found", file=sys.stderr)
            return 2
    written = []
    try:
        return _export_and_verify(args, checkpoint, written)
    except KeyboardInterrupt:  # Ctrl-C: the write is atomic, so --out is either as it was or complete
        if written:
            kept = f"{args.out} was written from {checkpoint} but not verified against PyTorch"
        else:
            kept = f"{args.out} was {'left as it was' if Path(args.out).exists() else 'not written'}; the same command starts again"
        print(f"\nalphazero.export: interrupted: {kept}", file=sys.stderr)
        return EXIT_INTERRUPTED


def _export_and_verify(args, checkpoint, written: list) -> int:
    """Export, then verify; `written` gets the path once the file is on disk (for the Ctrl-C line)."""
    try:
        report = export_onnx(checkpoint, args.out)
    except ExportError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"error: cannot write {args.out}: {err}", file=sys.stderr)
        return 2
    written.append(report.path)
    print(f"wrote {report.path} ({report.bytes:,} bytes, opset {report.opset}, {report.parameters:,} parameters) "
          f"from {checkpoint}")
    if args.verify == 0:
        return 0
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        print('not verified: onnxruntime is not installed (pip install -e ".[onnx]")')
        return 0
    from alphazero.othello.playout import random_positions

    check = compare_with_torch(load_for_export(checkpoint), report.path, random_positions(args.verify, seed=0))
    ok = check["prior_max_abs"] <= PRIOR_TOLERANCE and check["value_max_abs"] <= VALUE_TOLERANCE
    check.update(prior_tolerance=PRIOR_TOLERANCE, value_tolerance=VALUE_TOLERANCE, ok=ok)
    print("onnxruntime vs PyTorch: " + json.dumps(check))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
