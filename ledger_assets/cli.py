"""`ledger`: the command line over the same core the Dagster assets use.

Exit codes: 0 success, 1 the work failed (message on stderr), 2 bad usage or
bad input (the message names the input and what is wrong). No traceback for
a user error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

from .core import Ledger
from .repos import RegistryError
from .settings import LedgerSettings


# Dagster's per-event DEBUG lines drown the progress lines the stages log at INFO.
QUIET_RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "INFO"}}}}


class UsageError(Exception):
    """Bad usage or bad input: exit 2."""


class WorkFailed(Exception):
    """The work itself failed: exit 1."""


def _ledger() -> Ledger:
    try:
        return Ledger.from_env()
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


# ---------------------------------------------------------------- Dagster ---
def dagster_instance(settings: LedgerSettings):
    """The Dagster instance under LEDGER_HOME/dagster (or DAGSTER_HOME when set)."""
    from dagster import DagsterInstance

    home = Path(os.environ.get("DAGSTER_HOME") or settings.dagster_home)
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        template = Path(__file__).resolve().parent.parent / "dagster.yaml"
        if template.exists():
            shutil.copyfile(template, config)
        else:
            config.write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    os.environ["DAGSTER_HOME"] = str(home)
    return DagsterInstance.get()


def _ensure_partitions(instance, repo_ids: list[str]) -> None:
    from .partitions import repos_partitions

    known = set(instance.get_dynamic_partitions(repos_partitions.name))
    missing = [r for r in repo_ids if r not in known]
    if missing:
        instance.add_dynamic_partitions(repos_partitions.name, missing)


def _run_failures(result) -> list[str]:
    messages = []
    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            data = event.event_specific_data
            err = getattr(data, "error", None)
            messages.append(f"{event.step_key}: {err.message.strip() if err else 'failed'}")
        elif event.event_type_value == "ASSET_CHECK_EVALUATION":
            ev = event.event_specific_data
            if not ev.passed:
                messages.append(f"check {ev.asset_check_key.name} failed on "
                                f"{ev.asset_check_key.asset_key.to_user_string()}: {ev.description or ''}")
    return messages


# --------------------------------------------------------------- commands ---
def cmd_add_repo(args) -> int:
    ledger = _ledger()
    try:
        repo = ledger.registry.add(args.path, args.id)
    except RegistryError as exc:
        raise UsageError(str(exc)) from exc
    _ensure_partitions(dagster_instance(ledger.settings), [repo.repo_id])
    print(f"registered {repo.repo_id} ({repo.kind}) at {repo.path}")
    return 0


def cmd_ingest(args) -> int:
    from .definitions import build_defs

    ledger = _ledger()
    try:
        repos = ledger.registry.load()
    except RegistryError as exc:
        raise UsageError(str(exc)) from exc
    if args.all:
        ids = sorted(repos)
        if not ids:
            raise UsageError("no repos registered; add one with `ledger add-repo PATH`")
    elif args.ids:
        ids = list(dict.fromkeys(args.ids))
        unknown = [i for i in ids if i not in repos]
        if unknown:
            raise UsageError(f"unknown repo id(s): {', '.join(unknown)} (registered: {', '.join(sorted(repos)) or 'none'})")
    else:
        raise UsageError("name repo ids to ingest, or --all")
    instance = dagster_instance(ledger.settings)
    _ensure_partitions(instance, ids)
    job = build_defs(ledger.settings).resolve_job_def("ingest")
    run_ids, failures = [], []
    t0 = time.monotonic()
    for rid in ids:
        if args.format == "text":
            print(f"ingesting {rid} ...", file=sys.stderr)
        result = job.execute_in_process(partition_key=rid, instance=instance, raise_on_error=False,
                                        tags={"ledger/source": "cli"}, run_config=QUIET_RUN_CONFIG)
        run_ids.append(result.run_id)
        if not result.success:
            failures.extend(f"{rid}: {m}" for m in (_run_failures(result) or ["run failed"]))
    summary = ledger.db.summary(run_ids)
    summary["elapsed_s"] = round(summary["elapsed_s"], 3)
    out = {k: summary[k] for k in ("files_scanned", "chunks_written", "chunks_skipped", "chunks_deleted",
                                   "embeddings_computed", "intent_skipped", "llm_requests", "elapsed_s")}
    out.update(repos=ids, runs=run_ids, wall_s=round(time.monotonic() - t0, 3), success=not failures)
    if args.format == "json":
        print(json.dumps(out))
    else:
        for key, value in out.items():
            if key not in ("runs",):
                print(f"{key:>20}: {value}")
    if failures:
        for line in failures:
            print(f"ledger ingest: {line}", file=sys.stderr)
        return 1
    return 0


def cmd_chunk(args) -> int:
    from chunkers import chunk_file_result

    from .embedder import text_hash

    paths: list[tuple[str, Path]] = []
    for raw in args.paths:
        p = Path(raw)
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts):
                    paths.append((f.relative_to(p).as_posix(), f))
        elif p.is_file():
            paths.append((p.name if p.is_absolute() else p.as_posix(), p))
        else:
            raise UsageError(f"{raw}: no such file or directory")
    from chunkers.text import BinaryContent, decode, line_count

    if args.format == "table":
        print(f"{'file':<60} {'chunks':>6} {'coverage':>8}  types")
    for rel, path in paths:
        data = path.read_bytes()
        result = chunk_file_result(rel, data)
        if args.format == "jsonl":
            for i, piece in enumerate(result.pieces):
                d = piece.to_dict()
                print(json.dumps({"file_path": rel, "chunk_index": i, "chunk_type": d["chunk_type"],
                                  "start_line": d["start_line"], "end_line": d["end_line"], "text": d["text"],
                                  "analysis_text": d["analysis_text"], "symbols": d["symbols"],
                                  "skeleton": d["skeleton"], "content_hash": text_hash(piece.text),
                                  "meta": d["meta"]}, ensure_ascii=False))
            if result.skip_reason:
                print(f"ledger chunk: {rel}: skipped: {result.skip_reason}", file=sys.stderr)
        else:
            try:
                n = line_count(decode(data))
            except BinaryContent:
                n = 0
            covered = set()
            for piece in result.pieces:
                covered.update(range(max(piece.start_line, 1), min(piece.end_line, n) + 1))
            cov = f"{100 * len(covered) / n:.1f}%" if n and result.pieces and path.suffix.lower() != ".pdf" else "-"
            types: dict[str, int] = {}
            for piece in result.pieces:
                types[piece.chunk_type] = types.get(piece.chunk_type, 0) + 1
            kinds = ", ".join(f"{t}×{c}" for t, c in types.items()) or f"skipped: {result.skip_reason}"
            print(f"{rel[-60:]:<60} {len(result.pieces):>6} {cov:>8}  {kinds}")
    return 0


def cmd_query(args) -> int:
    from .embedder import Embedder
    from .search import QueryError, format_hits, search

    ledger = _ledger()
    embedder = Embedder(ledger.settings.embed_device, ledger.settings.embed_batch)
    try:
        if args.batch:
            try:
                lines = Path(args.batch).read_text(encoding="utf-8").splitlines()
            except OSError as exc:
                raise UsageError(f"{args.batch}: {exc.strerror}") from exc
            for line in lines:
                if line.strip():
                    hits = search(ledger, embedder, line.strip(), args.repo, args.k, args.lane)
                    print(json.dumps([h.to_dict(args.detail) for h in hits]))
            return 0
        if not args.text:
            raise UsageError("give the query TEXT or --batch FILE")
        hits = search(ledger, embedder, " ".join(args.text), args.repo, args.k, args.lane)
    except QueryError as exc:
        raise UsageError(str(exc)) from exc
    print(format_hits(hits, args.format, args.detail))
    return 0


def cmd_status(args) -> int:
    from .repos import read_indexed_head
    from .snapshot import SnapshotError, read_head

    ledger = _ledger()
    repos = ledger.registry.load()
    rows = []
    for rid, repo in sorted(repos.items()):
        try:
            head = read_head(repo.path, repo.kind)
        except SnapshotError as exc:
            head = f"unavailable ({exc})"
        indexed = read_indexed_head(ledger.settings.home_path, rid)
        rows.append({"repo_id": rid, "path": repo.path, "head": head, "indexed_sha": indexed,
                     "up_to_date": bool(indexed) and indexed == head})
    if args.format == "json":
        print(json.dumps(rows, indent=2))
    else:
        for r in rows:
            state = "up to date" if r["up_to_date"] else ("never indexed" if not r["indexed_sha"] else "behind HEAD")
            print(f"{r['repo_id']:<24} {state:<14} head={r['head'][:12]} indexed={r['indexed_sha'][:12] or '-'}  {r['path']}")
        if not rows:
            print("no repos registered")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ledger", description="The code ledger: index git repos, then ask where code is.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("add-repo", help="register a repo (a Dagster dynamic partition)")
    p.add_argument("path")
    p.add_argument("--id", help="repo id (default: a slug of the folder name)")
    p.set_defaults(func=cmd_add_repo)

    p = sub.add_parser("ingest", help="materialize the asset graph for repos, through Dagster")
    p.add_argument("ids", nargs="*")
    p.add_argument("--all", action="store_true")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("chunk", help="chunk files or folders, no storage")
    p.add_argument("paths", nargs="+")
    p.add_argument("--format", choices=("jsonl", "table"), default="table")
    p.set_defaults(func=cmd_chunk)

    p = sub.add_parser("query", help="hybrid search over the ledger")
    p.add_argument("text", nargs="*")
    p.add_argument("--repo")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--lane", choices=("hybrid", "code", "design", "sparse"), default="hybrid")
    p.add_argument("--format", choices=("text", "json", "toon", "jsonl"), default="text")
    p.add_argument("--detail", choices=("snippet", "skeleton", "full"), default="snippet")
    p.add_argument("--batch", help="file with one query per line (prints one JSON array per line)")
    p.set_defaults(func=cmd_query)

    p = sub.add_parser("status", help="indexed sha against HEAD, per repo")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_status)
    return parser


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"ledger {args.command}: {exc}", file=sys.stderr)
        return 2
    except WorkFailed as exc:
        print(f"ledger {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the work failed: one line, not a traceback
        print(f"ledger {args.command}: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        if os.environ.get("LEDGER_DEBUG"):
            raise
        return 1


if __name__ == "__main__":
    sys.exit(main())
