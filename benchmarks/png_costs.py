"""Where a mail picture's time goes (issue 24: the board PNG was 52% of a host's game work).

    .venv/bin/python benchmarks/png_costs.py                    # every game, 2, 4 and max players
    .venv/bin/python benchmarks/png_costs.py --only space-swarm --repeat 5

Real boards: bot games of every game (benchmarks/message_sizes.py's games, keys and seed) played
through the pipeline, the public board at a few log entries.  For each board the two pictures
are timed whole in CPU time (``process_time``, the best of ``--repeat``): ``mover_png`` (the
glance, MOVER_ZOOM) and ``mail_png`` (MAIL_ZOOM), with the bytes a pixel of each (the budget's
bound, ``PNG_BYTES_PER_PIXEL``, checked on both at the end); then the glance's stages: resvg
whole, on the board without its text and on an empty board of the same size (parsing, the font
database, its own PNG encoding), PIL's decoding, colour count, and the PNG encoding at several
zlib levels.  ``PYTHONPATH=<an older checkout>`` times that tree's pictures the same way.  Figures: docs/performance.md ("Outputs per move (issue 24)").
"""
from __future__ import annotations

import argparse
import io
import json
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from message_sizes import GAMES, bot_step, games_and_counts, new_game

from pbem.pipeline.botmoves import next_to_move
from pbem.pipeline.submit import moderator_opener
from pbem.store.table import Table
from pbem.views.boardmoves import BoardHistory
from pbem.views.outputs import public_outputs
from pbem.views.render import png as board_png

MARKS = (1, 15, 40, 90)


def boards(label: str, game_name: str, options: dict[str, str], n: int) -> list[tuple[str, str]]:
    """The public board SVG of a bot game at the log entries MARKS (those the game reaches)."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        gd = new_game(Path(tmp), game_name, options, n)
        table = Table.load(gd)
        opener = moderator_opener(gd)
        while (player := next_to_move(table)) is not None and table.last["index"] <= max(MARKS):
            index = table.last["index"]
            if index in MARKS:
                svg = public_outputs(table, BoardHistory.for_viewers(table, [None]))["public/board.svg"].decode()
                out.append((f"{label}-{n}p-{index}", svg))
            bot_step(table, gd, player, opener)
    return out


def best_ms(repeat: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
    return min(times) * 1000, result


def stages(svg: str, repeat: int) -> dict[str, float]:
    import resvg_py
    from PIL import Image
    # the glance as mover_png draws it (the board without its cell labels) and the zoom it is
    # drawn at (textured boards: pattern_zoom); an older tree without them draws the board as is
    glance = getattr(board_png, "glance_svg", lambda s: s)(svg)
    zoom = getattr(board_png, "pattern_zoom", lambda s, z: z)(glance, board_png.MOVER_ZOOM)
    opts = {"zoom": zoom, "background": "#ffffff", "shape_rendering": "crisp_edges",
            "text_rendering": "optimize_legibility"}
    no_text = re.sub(r"<text\b.*?</text>", "", glance, flags=re.DOTALL)
    empty = re.sub(r"(<svg\b[^>]*>).*", r"\1</svg>", glance, flags=re.DOTALL)
    row: dict[str, float] = {}
    # the two pictures whole: the mover's glance (MOVER_ZOOM) and the waiting readers' (MAIL_ZOOM)
    row["mover_png"], png = best_ms(repeat, lambda: board_png.mover_png(svg))
    row["mail_png"], big = best_ms(repeat, lambda: board_png.mail_png(svg))
    row["resvg"], raw = best_ms(repeat, lambda: bytes(resvg_py.svg_to_bytes(svg_string=glance, **opts)))
    row["resvg_no_text"], _ = best_ms(repeat, lambda: resvg_py.svg_to_bytes(svg_string=no_text, **opts))
    row["resvg_empty"], _ = best_ms(repeat, lambda: resvg_py.svg_to_bytes(svg_string=empty, **opts))
    row["decode"], image = best_ms(repeat, lambda: Image.open(io.BytesIO(raw)).convert("RGB"))
    row["getcolors"], _ = best_ms(repeat, lambda: image.getcolors(maxcolors=image.width * image.height))
    for name, data in (("bytes_per_pixel", png), ("bytes_per_pixel_mail", big)):
        pic = Image.open(io.BytesIO(data))
        row[name] = len(data) / (pic.width * pic.height)
    small = Image.open(io.BytesIO(png))
    small.load()
    pixels = small.width * small.height
    for level in (6, 7, 8, 9):
        row[f"save_level{level}"], data = best_ms(repeat, lambda lv=level: _save(small, compress_level=lv))
        row[f"bytes_per_pixel_level{level}"] = len(data) / pixels
    row["save_optimize_256_palette"], data = best_ms(repeat, lambda: _save(small.convert("RGB").quantize(
        palette=_padded(small), dither=Image.Dither.NONE), optimize=True))
    row["bytes_per_pixel_optimize_256_palette"] = len(data) / pixels
    return row


def _padded(small: Any) -> Any:
    """``small``'s palette padded to 256 entries, as mail_png made it before issue 24."""
    from PIL import Image
    flat = small.getpalette() or []
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat + flat[:3] * (256 - len(flat) // 3))
    return palette


def _save(image: Any, **kw: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", **kw)
    return out.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="games (labels), comma-separated: " + ", ".join(g[0] for g in GAMES))
    ap.add_argument("--players", help="player counts, comma-separated (default: 2, 4 and the maximum)")
    ap.add_argument("--repeat", type=int, default=3, help="time each stage this many times, keep the best")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    rows: list[dict[str, Any]] = []
    for label, game_name, options, n in games_and_counts(args.only, args.players):
        for name, svg in boards(label, game_name, options, n):
            row = {"board": name, **{k: round(v, 4 if "bytes" in k else 1) for k, v in stages(svg, args.repeat).items()}}
            rows.append(row)
            print(json.dumps(row), flush=True)
    keys_ = [k for k in rows[0] if k != "board"] if rows else []
    summary = {k: {"mean": round(statistics.mean(r[k] for r in rows), 4), "max": round(max(r[k] for r in rows), 4)}
               for k in keys_}
    print(json.dumps({"boards": len(rows), **summary}, indent=1))
    over = [(r["board"], k, r[k]) for r in rows for k in ("bytes_per_pixel", "bytes_per_pixel_mail")
            if r[k] > board_png.PNG_BYTES_PER_PIXEL]
    print(f"PNG_BYTES_PER_PIXEL {board_png.PNG_BYTES_PER_PIXEL}: " + (f"EXCEEDED {over}" if over else "holds on every board"))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": summary}, indent=1) + "\n")


if __name__ == "__main__":
    main()
