"""`ledger`: the command line over the same core the Dagster assets use.

Exit codes: 0 success, 1 the work failed (message on stderr), 2 bad usage or
bad input (the message names the input and what is wrong). No traceback for
a user error.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
import time
from pathlib import Path

from ledger_assets.retrieval.symbols import ToolInputError
from ledger_assets.store.printable import error_line, printable, show_path
from ledger_assets.defs.runs import (QUIET_RUN_CONFIG, cli_run_tags, dagster_instance, describe_run, ensure_partitions,
                                run_failures, runs_in_flight)
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.registry import RegistryError
from ledger_assets.store.settings import DETAILS, FORMATS, LANES, SettingsError, process_setting
from ledger_assets.status import IndexMissing, UnknownRepoId, require_index


class UsageError(Exception):
    """Bad usage or bad input: exit 2."""


class RepoBusy(RuntimeError):
    """A run of the repo is queued or in flight: exit 1, naming the run."""


def _registered(ledger: Ledger) -> dict:
    try:
        return ledger.registry.load()
    except RegistryError as exc:
        raise UsageError(str(exc)) from exc


def _ledger() -> Ledger:
    try:
        return Ledger.from_env()
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


# --------------------------------------------------------------- commands ---
def cmd_add_repo(args) -> int:
    if args.max_files < 1:
        raise UsageError(f"--max-files {args.max_files}: must be at least 1")
    ledger = _ledger()
    try:
        repo = ledger.registry.add(args.path, args.id, exist_ok=args.exist_ok, force=args.force,
                                   max_files=args.max_files)
    except RegistryError as exc:
        raise UsageError(str(exc)) from exc
    ensure_partitions(dagster_instance(ledger.settings), [repo.repo_id])
    print(f"registered {repo.repo_id} ({repo.kind}) at {printable(repo.path)}")
    return 0


def cmd_remove_repo(args) -> int:
    from ledger_assets.defs.partitions import repos_partitions
    from ledger_assets.store.registry import UnknownRepo, validate_repo_id

    ledger = _ledger()
    try:
        repo = ledger.registry.get(args.id)
    except UnknownRepo as exc:
        # Unregistered already (its partition deleted in the UI, say) but its rows may stay: --purge still works.
        if not args.purge:
            raise UsageError(str(exc)) from exc
        unknown, repo = exc, None
    except RegistryError as exc:
        raise UsageError(str(exc)) from exc
    try:
        validate_repo_id(args.id)
    except RegistryError as exc:
        raise UsageError(str(exc)) from exc
    instance = dagster_instance(ledger.settings)
    active = runs_in_flight(instance, args.id)
    if active:  # its run would write rows and points again after the purge, or fail on the missing repo
        raise RepoBusy(f"{args.id}: {describe_run(active[0])} of it is queued or in flight; wait for it "
                       "or cancel it in the Dagster UI, then remove the repo")
    if repo is not None:
        try:
            ledger.registry.remove(args.id)
        except RegistryError as exc:
            raise UsageError(str(exc)) from exc
    if instance.has_dynamic_partition(repos_partitions.name, args.id):
        instance.delete_dynamic_partition(repos_partitions.name, args.id)
    removed = ledger.purge(args.id) if args.purge else {}
    if repo is None and not any(removed.values()):
        raise UsageError(str(unknown))
    path = printable(repo.path) if repo else "no longer registered"
    if args.format == "json":
        print(json.dumps({"repo_id": args.id, "path": repo.path if repo else None, "purged": args.purge,
                          "removed": removed}))
    elif args.purge:
        rows = sum(n for table, n in removed.items() if table != "points")
        print(f"removed {args.id} ({path}): partition, {rows} DuckDB rows, {removed.get('points', 0)} points")
    else:
        print(f"removed {args.id} ({path}): registry entry and partition; its rows and points stay "
              "(`ledger remove-repo ID --purge` deletes them)")
    return 0


def cmd_ingest(args) -> int:
    ledger = _ledger()
    repos = _registered(ledger)
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
    from ledger_assets.ingest.snapshot import RepoStateError, check_repo

    healthy, not_ingested = [], {}  # not_ingested: repo -> why no run was started
    for rid in ids:  # a repo gone, emptied or without commits: one line each, before Dagster starts
        try:
            check_repo(repos[rid].path, repos[rid].kind)
            healthy.append(rid)
        except RepoStateError as exc:
            if not args.all:  # a repo named on the command line is bad input: exit 2
                raise UsageError(f"repo {rid!r}: {exc}") from exc
            not_ingested[rid] = str(exc)  # --all: the healthy ones still run; exit 1
    from ledger_assets.defs.assets import REBUILD_TAG
    from ledger_assets.definitions import build_defs

    instance = dagster_instance(ledger.settings)
    ensure_partitions(instance, healthy)
    job = build_defs(ledger.settings).resolve_job_def("ingest") if healthy else None
    run_ids, failures = [], []
    t0 = time.monotonic()
    for rid in healthy:
        active = runs_in_flight(instance, rid)  # the sensor's, the UI's or another `ledger ingest`
        if active:
            not_ingested[rid] = (f"{describe_run(active[0])} of it is queued or in flight (wait for it, "
                                 "or cancel it in the Dagster UI)")
            continue
        if args.format == "text":
            print(f"ingesting {rid} ...", file=sys.stderr)
        tags = {**cli_run_tags(), **({REBUILD_TAG: "true"} if args.rebuild else {})}
        result = job.execute_in_process(partition_key=rid, instance=instance, raise_on_error=False,
                                        tags=tags, run_config=QUIET_RUN_CONFIG)
        run_ids.append(result.run_id)
        if not result.success:
            failures.extend(f"{rid}: {m}" for m in (run_failures(result) or ["run failed"]))
    summary = ledger.db.summary(run_ids)
    summary["elapsed_s"] = round(summary["elapsed_s"], 3)
    out = {k: summary[k] for k in ("files_scanned", "chunks_written", "chunks_skipped", "chunks_deleted",
                                   "embeddings_computed", "intent_skipped", "llm_requests", "elapsed_s")}
    out.update(repos=ids, runs=run_ids, wall_s=round(time.monotonic() - t0, 3),
               success=not (failures or not_ingested), not_ingested=sorted(not_ingested))
    if args.format == "json":
        print(json.dumps(out))
    else:
        for key, value in out.items():
            if key not in ("runs",) and (key != "not_ingested" or value):
                print(f"{key:>20}: {value}")
    failures = [f"{rid}: not ingested: {why}" for rid, why in sorted(not_ingested.items())] + failures
    for line in failures:
        print(f"ledger ingest: {line}", file=sys.stderr)
    return 1 if failures else 0


def cmd_chunk(args) -> int:
    from chunkers import chunk_file_guarded

    from ledger_assets.encode.embedder import text_hash
    from ledger_assets.store.folders import folder_files
    from ledger_assets.store.settings import LedgerSettings

    options = LedgerSettings.from_env().chunking()  # LEDGER_CHUNK_OPTIONS, as the ingest chunks

    paths: list[tuple[str, Path]] = []
    for raw in args.paths:
        p = Path(raw)
        if p.is_dir():  # as a folder repo is walked, less its dot files
            paths += sorted(((rel, f) for rel, f, skip in folder_files(p)
                             if not skip and not rel.rpartition("/")[2].startswith(".")),
                            key=lambda item: item[0].split("/"))
        elif p.is_file():
            paths.append((p.name if p.is_absolute() else p.as_posix(), p))
        else:
            raise UsageError(f"{raw}: no such file or directory")
    from chunkers.text import BinaryContent, decode, line_count

    if args.format == "table":
        print(f"{'file':<60} {'chunks':>6} {'coverage':>8}  types")
    from ledger_assets.ingest.snapshot import KEY_MATERIAL, LFS_POINTER, is_key_material, is_lfs_pointer

    for rel, path in paths:
        data = path.read_bytes()
        # What the ingest never chunks is not chunked here either (key material is not even shown).
        withheld = KEY_MATERIAL if is_key_material(rel) else LFS_POINTER if is_lfs_pointer(data) else ""
        if withheld:
            if args.format == "jsonl":
                print(f"ledger chunk: {printable(rel)}: skipped: {withheld}", file=sys.stderr)
            else:
                print(f"{printable(rel)[-60:]:<60} {0:>6} {'-':>8}  skipped: {withheld}")
            continue
        result = chunk_file_guarded(rel, data, options)
        if args.format == "jsonl":
            for i, piece in enumerate(result.pieces):
                d = piece.to_dict()
                print(json.dumps({"file_path": rel, "chunk_index": i, "chunk_type": d["chunk_type"],
                                  "start_line": d["start_line"], "end_line": d["end_line"], "text": d["text"],
                                  "analysis_text": d["analysis_text"], "symbols": d["symbols"],
                                  "skeleton": d["skeleton"], "content_hash": text_hash(piece.text),
                                  "meta": d["meta"]}, ensure_ascii=False))
            for why in ([f"skipped: {result.skip_reason}"] if result.skip_reason else []) + [f"note: {n}" for n in result.notes]:
                print(f"ledger chunk: {printable(rel)}: {why}", file=sys.stderr)
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
            kinds = (", ".join(f"{t}×{c}" for t, c in types.items()) or f"skipped: {result.skip_reason}") + "".join(
                f"; note: {printable(n)}" for n in result.notes)  # why a file was read otherwise (a fallback, a cap)
            print(f"{printable(rel)[-60:]:<60} {len(result.pieces):>6} {cov:>8}  {kinds}")
    return 0


def _split_list(values) -> tuple[str, ...]:
    return tuple(v.strip() for raw in (values or []) for v in raw.split(",") if v.strip())


def _embedder(ledger: Ledger):
    from ledger_assets.encode.embedder import query_embedder

    s = ledger.settings
    return query_embedder(s.embed_device, s.embed_batch, s.embed_backend)


def cmd_query(args) -> int:
    from ledger_assets.retrieval.hits import format_files
    from ledger_assets.retrieval.fusion import QueryError
    from ledger_assets.retrieval.rerank import format_result
    from ledger_assets.retrieval.search import Searcher, SearchOptions

    ledger = _ledger()
    require_index(ledger, _registered(ledger), args.repo)

    def options() -> SearchOptions:
        return SearchOptions(repo=args.repo, k=args.k, lane=args.lane, chunk_types=_split_list(args.type),
                             languages=_split_list(args.language), path_prefix=args.path or "", group=args.group or "",
                             where=tuple(args.where or ()), include_deprecated=args.include_deprecated,
                             rerank=args.rerank or "")

    def run(searcher, text: str, fmt: str) -> str:
        if args.group:
            return format_files(searcher.search_files(text, options()), fmt, args.detail)
        hits, report = searcher.search_ranked(text, options())
        if report is not None and fmt != "json":  # json carries it as "rerank"
            print(report.line(), file=sys.stderr, flush=True)
        return format_result(text, hits, report, fmt, args.detail)

    try:
        if args.batch:
            if args.format not in ("jsonl", "json"):
                raise UsageError("--batch prints one JSON array per line: use --format jsonl")
            try:
                lines = [ln.strip() for ln in Path(args.batch).read_text(encoding="utf-8").splitlines()]
            except OSError as exc:
                raise UsageError(f"{args.batch}: {exc.strerror or exc}") from exc
            options().validate()
            searcher = Searcher(ledger, _embedder(ledger))
            with searcher.session():  # one model, one Qdrant client for the whole batch
                for line in lines:
                    if line:
                        print(run(searcher, line, "jsonl"), flush=True)
            return 0
        if not args.text:
            raise UsageError("give the query TEXT or --batch FILE")
        if args.format == "jsonl":
            raise UsageError("--format jsonl is for --batch; use json for one query")
        shown = run(Searcher(ledger, _embedder(ledger)), " ".join(args.text), args.format)
    except QueryError as exc:
        raise UsageError(str(exc)) from exc
    print(shown)
    return 0


def cmd_read_span(args) -> int:  # a ToolInputError from any read below is bad input: exit 2, in main
    from ledger_assets.retrieval.tools import format_span, read_span

    span = read_span(_ledger(), args.file, args.start, args.end, args.repo, args.max_lines)
    print(json.dumps(span, ensure_ascii=False) if args.format == "json" else format_span(span))
    return 0


def cmd_symbol(args) -> int:
    from ledger_assets.retrieval.symbols import format_symbols, symbol_lookup

    ledger = _ledger()
    require_index(ledger, _registered(ledger), args.repo)
    matches = symbol_lookup(ledger, args.name, args.repo)
    print(json.dumps([m.to_dict() for m in matches], indent=2) if args.format == "json" else format_symbols(matches))
    return 0


def cmd_drift(args) -> int:
    from ledger_assets.retrieval.tools import drift, format_drift

    report = drift(_ledger(), args.repo, args.since, args.move_threshold)
    print(json.dumps(report, indent=2) if args.format == "json" else format_drift(report))
    return 0


def cmd_similar(args) -> int:
    from ledger_assets.retrieval.hits import format_hits
    from ledger_assets.retrieval.tools import similar

    print(format_hits(similar(_ledger(), args.location, args.mode, args.repo, args.k), args.format, "snippet"))
    return 0


def cmd_deprecate(args) -> int:
    from ledger_assets.retrieval.deprecation import deprecate, format_deprecation
    report = deprecate(_ledger(), args.repo, args.target, args.reason, undo=args.undo)  # ToolInputError: exit 2
    print(json.dumps(report, indent=2) if args.format == "json" else format_deprecation(report))
    return 0


def cmd_golden(args) -> int:
    from ledger_assets.evaluation.commit_golden import build_commit_golden
    from ledger_assets.evaluation.golden import GoldenError, build_golden

    try:
        if (args.max is not None or args.tests) and not args.commits:
            raise UsageError("--max and --tests are for --commits")
        report = (build_commit_golden(args.repo_path, args.out_dir, args.max, tests=args.tests) if args.commits
                  else build_golden(args.repo_path, args.out_dir))
    except GoldenError as exc:
        raise UsageError(str(exc)) from exc
    if args.format == "json":
        print(json.dumps(report))
    elif args.commits:
        skipped = ", ".join(f"{n} {why}" for why, n in report["skipped"].items()) or "none"
        print(f"{report['queries']} {'questions about tests' if args.tests else 'commit queries'} from "
              f"{report['commits_read']} commits (skipped: {skipped}) "
              f"-> {report['golden']}\nregister and ingest {report['repo']} at HEAD, then "
              f"`ledger eval {report['golden']} --repo ID` (file-level Acc@k)")
    else:
        print(f"{report['queries']} golden queries ({report['documented']} documented units in "
              f"{report['files_with_docs']} files) -> {report['golden']}\n"
              f"docs blanked in the git repo {report['repo_copy']}; register and ingest it, then "
              f"`ledger eval {report['golden']} --repo ID`")
    return 0


def cmd_eval(args) -> int:
    from ledger_assets.evaluation.evaluate import evaluate, format_report
    from ledger_assets.evaluation.scoring import EvalError

    ledger = _ledger()
    try:
        from ledger_assets.encode.embedder import Embedder

        # eval embeds thousands of baseline windows: keep torch's threads for batches.
        report = evaluate(ledger, Embedder(ledger.settings.embed_device, ledger.settings.embed_batch, ledger.settings.embed_backend), args.golden, args.repo, baselines=not args.no_baselines,
                          sweep_grid=args.sweep, log=lambda m: print(m, file=sys.stderr))
    except EvalError as exc:
        raise UsageError(str(exc)) from exc
    print(json.dumps(report, indent=2) if args.format == "json" else format_report(report))
    return 0


def cmd_context(args) -> int:
    from ledger_assets.retrieval.context import ContextError, build_pack, render_pack
    from ledger_assets.retrieval.fusion import QueryError
    from ledger_assets.retrieval.search import Searcher

    ledger = _ledger()
    require_index(ledger, _registered(ledger), args.repo)
    try:
        pack = build_pack(Searcher(ledger, _embedder(ledger)), " ".join(args.task), args.repo, args.budget, args.files)
    except (ContextError, QueryError) as exc:
        raise UsageError(str(exc)) from exc
    if pack.note and args.format != "json":  # json carries it as "note"
        print(pack.note, file=sys.stderr)
    print(json.dumps(pack.to_dict(), indent=2, ensure_ascii=False) if args.format == "json" else render_pack(pack))
    return 0


def cmd_mcp(args) -> int:
    from ledger_assets.mcp_server import serve

    serve()
    return 0


def cmd_status(args) -> int:
    from ledger_assets.status import format_status, repo_status

    ledger = _ledger()
    rows = repo_status(ledger, _registered(ledger))
    print(json.dumps(rows, indent=2) if args.format == "json" else format_status(rows))
    for r in rows:
        if not r["index_ok"]:
            print(f"ledger status: {r['repo_id']}: {r['index_problem']}; run `ledger ingest {r['repo_id']} --rebuild`",
                  file=sys.stderr)
    return 0 if all(r["index_ok"] for r in rows) else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ledger", description="The code ledger: index git repos, then ask where code is.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("add-repo", help="register a repo (a Dagster dynamic partition)")
    p.add_argument("path")
    p.add_argument("--id", help="repo id (default: a slug of the folder name)")
    p.add_argument("--exist-ok", action="store_true", help="succeed if the same path is already registered under this id")
    p.add_argument("--force", action="store_true", help="register a filesystem root or a tree of more than --max-files files")
    p.add_argument("--max-files", type=int, default=100_000, metavar="N",
                   help="refuse (without --force) a tree of more than N files (default: %(default)s)")
    p.set_defaults(func=cmd_add_repo)

    p = sub.add_parser("remove-repo", help="unregister a repo and drop its partition; --purge deletes its data")
    p.add_argument("id")
    p.add_argument("--purge", action="store_true", help="also delete its DuckDB rows and Qdrant points")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_remove_repo)

    p = sub.add_parser("ingest", help="materialize the asset graph for repos, through Dagster")
    p.add_argument("ids", nargs="*")
    p.add_argument("--all", action="store_true")
    p.add_argument("--rebuild", action="store_true",
                   help="re-chunk every file and re-stage every point (embeddings come from the cache): "
                        "what `ledger status` asks for when an index is missing or corrupt")
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
    p.add_argument("--lane", choices=("hybrid", *LANES), default="hybrid")
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument("--detail", choices=DETAILS, default="snippet")
    p.add_argument("--type", action="append", help="only these chunk types (repeat or comma-separate)")
    p.add_argument("--language", action="append", help="only these languages (repeat or comma-separate)")
    p.add_argument("--path", help="only files under this path prefix")
    p.add_argument("--batch", help="file with one query per line (prints one JSON array per line)")
    p.add_argument("--group", choices=("file",), help="rank files by the evidence of their chunks")
    p.add_argument("--where", action="append", metavar="FIELD<=N",
                   help="payload condition, repeatable: q_testability<=2, q_cyclomatic>10, layer=domain")
    p.add_argument("--include-deprecated", action="store_true", help="also chunks marked by `ledger deprecate`")
    p.add_argument("--rerank", choices=("none", "llm"),
                   help="llm: Groq reorders the top LEDGER_RERANK_TOP fused hits (needs GROQ_API_KEY; "
                        "default LEDGER_RERANK, none)")
    p.set_defaults(func=cmd_query)

    p = sub.add_parser("read-span", help="lines START..END of a file in a registered repo")
    p.add_argument("file")
    p.add_argument("start", type=int)
    p.add_argument("end", type=int)
    p.add_argument("--repo")
    p.add_argument("--max-lines", type=int, help="cap (default LEDGER_READ_SPAN_MAX_LINES, 400)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_read_span)

    p = sub.add_parser("symbol", help="where a symbol is defined (exact, case-insensitive, Type.Member)")
    p.add_argument("name")
    p.add_argument("--repo")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_symbol)

    p = sub.add_parser("drift", help="symbols added/removed/changed/moved since a commit")
    p.add_argument("--repo", required=True)
    p.add_argument("--since", required=True)
    p.add_argument("--move-threshold", type=int, help="line shifts up to this are not moves (default 10)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_drift)

    p = sub.add_parser("similar", help="chunks similar to the one at FILE:LINE")
    p.add_argument("location", metavar="FILE:LINE")
    p.add_argument("--mode", choices=("code", "design", "quality", "concept"), default="code")
    p.add_argument("--repo", help="the repo FILE belongs to, when several hold that path (neighbours come from every repo)")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--format", choices=("text", "json", "toon"), default="text")
    p.set_defaults(func=cmd_similar)

    p = sub.add_parser("deprecate", help="mark chunks deprecated (queries leave them out), or --undo")
    p.add_argument("repo")
    p.add_argument("target", help="a chunk (path#index or its ledger_id), a file path or a symbol name")
    p.add_argument("--reason", help="why, and what to use instead (required unless --undo)")
    p.add_argument("--undo", action="store_true", help="clear the mark")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_deprecate)

    p = sub.add_parser("golden", help="build a golden set from a repo's doc comments (CodeSearchNet way)")
    p.add_argument("repo_path")
    p.add_argument("out_dir")
    p.add_argument("--commits", action="store_true",
                   help="change requests from the repo's history: commit subject -> source files changed")
    p.add_argument("--max", type=int, help="with --commits: at most N queries (the newest)")
    p.add_argument("--tests", action="store_true", help="with --commits: questions about tests -> test files")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_golden)

    p = sub.add_parser("eval", help="recall@1/5/10 and MRR@10 per lane, fusion and baselines")
    p.add_argument("golden")
    p.add_argument("--repo", required=True)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--no-baselines", action="store_true", help="skip the 3,000-char window baselines")
    p.add_argument("--sweep", action="store_true", help="also re-fuse under a grid of RRF k / weights / priors")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("context", help="the whole chunks to read for a task, within a token budget")
    p.add_argument("task", nargs="+")
    p.add_argument("--repo")
    p.add_argument("--budget", type=int, default=4000, help="tokens (MiniLM's tokenizer, headers included)")
    p.add_argument("--files", type=int, default=30, help="ranked files whose chunks may enter")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_context)

    p = sub.add_parser("mcp", help="serve the ledger's tools over MCP (stdio)")
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser("status", help="indexed sha against HEAD, per repo")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_status)
    return parser


def _exit_now(rc: int) -> None:
    """End `ledger ingest` without the interpreter's teardown (2-6 s once torch is loaded; the run is committed
    by then: DuckDB and Qdrant are opened per use). Exit handlers and logging still flush."""
    import atexit
    import logging

    atexit._run_exitfuncs()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        rc = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        if argv is None and args.command == "ingest":
            _exit_now(rc)
        return rc
    except (UsageError, SettingsError, ToolInputError, UnknownRepoId) as exc:  # each message: one line, as printed
        print(f"ledger {args.command}: {error_line(str(exc))}", file=sys.stderr)
        return 2
    except IndexMissing as exc:  # nothing served for what a read asked about
        print(f"ledger {args.command}: {error_line(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `ledger read-span ... | head`: the reader left; quiet, as SIGPIPE would be
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:
        if exc.errno not in (errno.ENAMETOOLONG, errno.ELOOP) or exc.filename is None:
            print(f"ledger {args.command}: failed: {type(exc).__name__}: {error_line(str(exc))}", file=sys.stderr)
            if process_setting("debug"):
                raise
            return 1
        # A path argument no file system call can take: bad input, named in one line.
        print(f"ledger {args.command}: {show_path(exc.filename)}: {exc.strerror}", file=sys.stderr)
        return 2
    except Exception as exc:  # the work failed: one line, not a traceback
        print(f"ledger {args.command}: failed: {type(exc).__name__}: {error_line(str(exc))}", file=sys.stderr)
        if process_setting("debug"):
            raise
        return 1


if __name__ == "__main__":
    sys.exit(main())
