#!/usr/bin/env python3
"""MCP conformance: drive a running Studio's agent endpoint with the official Python SDK.

Usage: mcp_client.py URL KEY ASSET_ID [--stdio STUDIO_BIN]

URL is the deployment's base URL, KEY a member key (studio_sk_...) of a fresh house (100 tokens),
ASSET_ID a small PNG in its library; the deployment's AI reader must answer (run.sh points it at
a stub). Over Streamable HTTP (`URL/api/mcp`, the key as `Authorization: Bearer`) it initializes,
lists the tools (all twelve must be there), calls check_balance, list_capabilities, list_assets
and preflight, starts an upscale develop, polls get_develop until it lands, lists develops, asks
get_verdict for the frame, redraws it (or sees the redraw refused when the verdict says it is
futile), reads a model and a build, casts a model, and checks a refusal and a bogus key. With
--stdio it also runs `STUDIO_BIN mcp` through the SDK's stdio client (STUDIO_URL and
STUDIO_API_KEY set) and repeats the handshake, the tool list and two calls there.

The SDK validates every successful result's structuredContent against the tool's outputSchema;
a failure names the tool and why. Every check runs even when an earlier one fails; the last line
is `conformance: N passed, N failed` and the exit code is 1 when anything failed.

Works with the `mcp` package 2.x (`streamable_http_client(url, http_client=...)`, results with
snake_case attributes) and 1.x (`streamablehttp_client(url, headers=...)` yielding a 3-tuple,
camelCase attributes).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
import traceback
from typing import Any

from mcp import ClientSession

EXPECTED_TOOLS = [
    "list_capabilities",
    "check_balance",
    "list_assets",
    "preflight",
    "start_develop",
    "get_develop",
    "list_develops",
    "get_verdict",
    "redraw",
    "read_model",
    "read_build",
    "cast_model",
]
PROTOCOL_VERSION = "2025-06-18"
SERVER_VERSION = "1.0.0"
DEVELOP_TIMEOUT_S = 120
# Tokens a new house is granted.
GRANT = 100

passed: list[str] = []
failed: list[str] = []


def attr(obj: Any, snake: str, camel: str | None = None) -> Any:
    """A result field under its 2.x (snake_case) or 1.x (camelCase) name."""
    if hasattr(obj, snake):
        return getattr(obj, snake)
    return getattr(obj, camel or snake, None)


class CheckFailed(Exception):
    pass


def expect(condition: bool, why: str) -> None:
    if not condition:
        raise CheckFailed(why)


async def check(name: str, body) -> Any:
    """Run one check; record it; its value, or None when it failed."""
    try:
        value = await body()
    except CheckFailed as e:
        failed.append(name)
        print(f"FAIL {name}: {e}", flush=True)
        return None
    except Exception as e:  # the SDK's own errors: output-schema validation, JSON-RPC errors
        failed.append(name)
        print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
        if not isinstance(e, RuntimeError) and type(e).__name__.lower() != "mcperror":
            traceback.print_exc(limit=3, file=sys.stdout)
        return None
    passed.append(name)
    print(f"ok   {name}", flush=True)
    return value


async def call(session: ClientSession, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """tools/call through the SDK (which validates structuredContent against the outputSchema
    of a successful result); the structured content of a success, or CheckFailed for a refusal."""
    try:
        result = await session.call_tool(tool, arguments)
    except RuntimeError as e:
        if "structured content" in str(e) or "schema" in str(e):
            raise CheckFailed(f"the SDK refused {tool}'s result against its outputSchema: {e}") from e
        raise
    structured = attr(result, "structured_content", "structuredContent")
    if attr(result, "is_error", "isError"):
        raise CheckFailed(f"{tool} refused: {json.dumps(structured)}")
    expect(isinstance(structured, dict), f"{tool}: no structuredContent")
    content = attr(result, "content") or []
    texts = [getattr(block, "text", None) for block in content]
    expect(texts and texts[0] is not None, f"{tool}: no text content block")
    expect(json.loads(texts[0]) == structured, f"{tool}: the text block does not carry the structured JSON")
    return structured


@contextlib.asynccontextmanager
async def http_session(url: str, key: str):
    """A ClientSession over the SDK's Streamable HTTP client with the key on every request."""
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Authorization": f"Bearer {key}"}
    async with contextlib.AsyncExitStack() as stack:
        try:
            from mcp.client.streamable_http import streamable_http_client  # 2.x (and late 1.x)

            http = await stack.enter_async_context(create_mcp_http_client(headers=headers))
            streams = await stack.enter_async_context(streamable_http_client(url, http_client=http))
        except ImportError:
            from mcp.client.streamable_http import streamablehttp_client  # 1.x

            streams = await stack.enter_async_context(streamablehttp_client(url, headers=headers))
        read, write = streams[0], streams[1]
        session = await stack.enter_async_context(ClientSession(read, write))
        yield session


@contextlib.asynccontextmanager
async def stdio_session(studio_bin: str, url: str, key: str):
    """A ClientSession over the SDK's stdio client running `studio mcp`."""
    from mcp import StdioServerParameters, stdio_client

    config_dir = tempfile.mkdtemp(prefix="studio-mcp-conformance-")
    params = StdioServerParameters(
        command=studio_bin,
        args=["mcp"],
        # A config file that does not exist: only the environment speaks.
        env={"STUDIO_URL": url, "STUDIO_API_KEY": key, "STUDIO_CONFIG": os.path.join(config_dir, "config.toml")},
    )
    async with stdio_client(params) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            yield session


async def handshake(session: ClientSession, where: str, balance: int) -> None:
    async def initialize():
        result = await session.initialize()
        version = attr(result, "protocol_version", "protocolVersion")
        info = attr(result, "server_info", "serverInfo")
        expect(version == PROTOCOL_VERSION, f"protocolVersion {version!r}, wanted {PROTOCOL_VERSION}")
        expect(info is not None and info.name == "studio", f"serverInfo.name {getattr(info, 'name', None)!r}")
        expect(info.version == SERVER_VERSION, f"serverInfo.version {info.version!r}, wanted {SERVER_VERSION}")
        capabilities = attr(result, "capabilities")
        expect(capabilities is not None and capabilities.tools is not None, "capabilities.tools missing")
        expect(bool(attr(result, "instructions")), "no instructions")

    await check(f"{where}: initialize (protocolVersion {PROTOCOL_VERSION}, server studio {SERVER_VERSION})", initialize)

    async def list_tools():
        listed = await session.list_tools()
        names = [t.name for t in listed.tools]
        missing = [n for n in EXPECTED_TOOLS if n not in names]
        extra = [n for n in names if n not in EXPECTED_TOOLS]
        print(f"     {where}: {len(names)} tools listed: {', '.join(names)}", flush=True)
        expect(not missing, f"missing tools: {', '.join(missing)}" + (f"; unexpected: {extra}" if extra else ""))
        expect(not extra, f"unexpected tools: {', '.join(extra)}")
        for tool in listed.tools:
            schema = attr(tool, "input_schema", "inputSchema")
            expect(schema.get("type") == "object", f"{tool.name}: inputSchema type is not object")

    await check(f"{where}: tools/list names all twelve tools", list_tools)

    async def check_balance():
        structured = await call(session, "check_balance", {})
        got = structured.get("balance")
        expect(got == balance, f"balance {got!r}, wanted {balance}")

    await check(f"{where}: check_balance answers balance {balance}", check_balance)


async def over_http(url: str, key: str, asset_id: str) -> tuple[str | None, int | None]:
    """The HTTP checks; the develop's job id (None if none started) and the balance at the end."""
    endpoint = f"{url}/api/mcp"
    async with http_session(endpoint, key) as session:
        await handshake(session, "http", GRANT)

        async def ping():
            await session.send_ping()

        await check("http: ping", ping)

        async def capabilities():
            book = await call(session, "list_capabilities", {})
            tools = [t.get("tool") for t in book.get("tools", [])]
            expect("upscale" in tools, f"upscale not offered: {tools}")

        await check("http: list_capabilities offers upscale", capabilities)

        async def assets():
            listed = await call(session, "list_assets", {"limit": 10})
            ids = [a.get("id") for a in listed.get("assets", [])]
            expect(asset_id in ids, f"{asset_id} not in {ids}")

        await check("http: list_assets shows the uploaded PNG", assets)

        async def start():
            arguments = {
                "tool": "upscale",
                "inputs": {"image": asset_id},
                "quality": "1k",
                "params": {},
                "idempotencyKey": "conformance-1",
            }
            started = await call(session, "start_develop", arguments)
            expect(isinstance(started.get("jobId"), str), f"no jobId: {started}")
            expect(started.get("status") == "queued", f"status {started.get('status')!r}, wanted queued")
            return started["jobId"]

        job_id = await check("http: start_develop upscale 1k queues a job", start)
        if job_id is None:
            return None, None

        async def poll():
            deadline = time.monotonic() + DEVELOP_TIMEOUT_S
            while True:
                status = await call(session, "get_develop", {"jobId": job_id})
                state = status.get("status")
                if state in ("done", "failed", "cancelled"):
                    expect(state == "done", f"the develop ended {state}: {status.get('error')}")
                    expect(status.get("resultAssetId"), f"done without resultAssetId: {status}")
                    return
                expect(time.monotonic() < deadline, f"still {state} after {DEVELOP_TIMEOUT_S} s")
                await asyncio.sleep(0.5)

        await check(f"http: get_develop polls {job_id} to done", poll)

        async def develops():
            listed = await call(session, "list_develops", {"limit": 5})
            expect(any(d.get("jobId") == job_id for d in listed.get("develops", [])), f"{job_id} not listed")

        await check("http: list_develops lists it", develops)

        async def verdict():
            judged = await call(session, "get_verdict", {"jobId": job_id})
            score = judged.get("score")
            expect(isinstance(score, (int, float)) and not isinstance(score, bool), f"score {score!r} is not a number")
            expect(isinstance(judged.get("retryFutile"), bool), f"retryFutile {judged.get('retryFutile')!r}")
            print(f"     verdict: {json.dumps(judged)[:300]}", flush=True)
            return judged

        judged = await check("http: get_verdict judges the frame with a numeric score", verdict)

        async def redraw():
            arguments = {"jobId": job_id, "idempotencyKey": "conformance-redraw-1"}
            if judged is not None and judged.get("retryFutile"):
                result = await session.call_tool("redraw", arguments)
                error = (attr(result, "structured_content", "structuredContent") or {}).get("error", "")
                expect(attr(result, "is_error", "isError") is True, "a futile redraw was not refused")
                expect(error.startswith("REDRAW_FUTILE:"), f"refusal {error!r}, wanted REDRAW_FUTILE: ...")
                return
            first = await call(session, "redraw", arguments)
            jobs = first.get("jobs") or []
            expect(len(jobs) == 1 and jobs[0].get("sourceJobId") == job_id, f"jobs {jobs}")
            again = await call(session, "redraw", arguments)
            expect([j.get("jobId") for j in again.get("jobs") or []] == [jobs[0]["jobId"]], f"replay gave {again}")

        await check("http: redraw develops the frame again (same key: same job)", redraw)

        async def preflight():
            checked = await call(session, "preflight", {"assetIds": [asset_id]})
            findings = checked.get("findings")
            expect(isinstance(findings, list), f"findings {findings!r}")
            expect(checked.get("clear") == (findings == []), f"clear {checked.get('clear')!r} with {findings}")

        await check("http: preflight checks the PNG (clear is exactly no findings)", preflight)

        async def read_model():
            reading = await call(session, "read_model", {"assetIds": [asset_id]})
            for field in ("age", "skin", "eyes", "hair"):
                expect(isinstance(reading.get(field), str), f"{field} {reading.get(field)!r}")
            expect(isinstance(reading.get("extras"), list), f"extras {reading.get('extras')!r}")
            expect(reading.get("tokens") == 1, f"tokens {reading.get('tokens')!r}, wanted 1")
            return reading

        reading = await check("http: read_model reads a look for 1 token", read_model)

        async def read_build():
            build = await call(session, "read_build", {"assetId": asset_id})
            for field in ("height", "build", "presence", "posture", "hands"):
                expect(isinstance(build.get(field), str), f"{field} {build.get(field)!r}")
            expect(build.get("tokens") == 1, f"tokens {build.get('tokens')!r}, wanted 1")

        await check("http: read_build reads a build for 1 token", read_build)

        async def cast():
            traits = {"age": (reading or {}).get("age") or "mid-20s"}
            kept = await call(session, "cast_model", {"name": "Conformance", "assetIds": [asset_id], "traits": traits})
            expect(str(kept.get("id", "")).startswith("mdl_"), f"id {kept.get('id')!r}")
            expect(kept.get("assetIds") == [asset_id], f"assetIds {kept.get('assetIds')!r}")

        await check("http: cast_model keeps a model (mdl_ id)", cast)

        async def refusal():
            result = await session.call_tool("get_develop", {"jobId": "job_not-a-job"})
            expect(attr(result, "is_error", "isError") is True, "an unknown job was not refused")
            error = (attr(result, "structured_content", "structuredContent") or {}).get("error", "")
            expect(error.startswith("NOT_FOUND:"), f"refusal {error!r}, wanted NOT_FOUND: ...")

        await check("http: a refusal is a result with isError and CODE: message", refusal)

        async def final_balance():
            return (await call(session, "check_balance", {})).get("balance")

        return job_id, await check("http: check_balance after spending", final_balance)


def messages(e: BaseException) -> str:
    """An exception's message with those of the exceptions it groups (anyio task groups)."""
    inner = getattr(e, "exceptions", None) or []
    return " | ".join([f"{type(e).__name__}: {e}"] + [messages(x) for x in inner])


async def bad_key(url: str) -> None:
    async def refused():
        seen = None
        try:
            async with http_session(f"{url}/api/mcp", "studio_sk_not-a-key") as session:
                await session.initialize()  # needs no key
                await session.list_tools()
        except Exception as e:
            # 2.x hands back the 401's JSON-RPC error ("Unauthorized: ..."); 1.x raises the HTTP
            # status ("401 Unauthorized") out of its task group.
            seen = messages(e)
        expect(seen is not None, "tools/list with a bogus key was answered")
        expect("Unauthorized" in seen, f"unexpected error: {seen}")

    await check("http: a bogus key is refused with 401 Unauthorized (initialize needs no key)", refused)


async def over_stdio(studio_bin: str, url: str, key: str, job_id: str | None, balance: int | None) -> None:
    async with stdio_session(studio_bin, url, key) as session:
        await handshake(session, "stdio", GRANT if balance is None else balance)
        if job_id is not None:

            async def develop():
                status = await call(session, "get_develop", {"jobId": job_id})
                expect(status.get("status") == "done", f"status {status.get('status')!r}")

            await check("stdio: get_develop reads the develop started over HTTP", develop)


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="MCP conformance against a running Studio (see the module doc).")
    parser.add_argument("url", help="the deployment's base URL")
    parser.add_argument("key", help="a member key of a fresh house (studio_sk_...)")
    parser.add_argument("asset_id", help="a small PNG in the house's library")
    parser.add_argument("--stdio", metavar="STUDIO_BIN", help="also run `STUDIO_BIN mcp` through the stdio client")
    opts = parser.parse_args(argv)
    url, key, asset_id, studio_bin = opts.url.rstrip("/"), opts.key, opts.asset_id, opts.stdio
    try:
        from importlib.metadata import version

        print(f"mcp SDK {version('mcp')} against {url}/api/mcp", flush=True)
    except Exception:
        pass
    job_id, balance = None, None
    try:
        job_id, balance = await over_http(url, key, asset_id)
    except Exception as e:
        failed.append("http: session")
        print(f"FAIL http: the session broke: {type(e).__name__}: {e}", flush=True)
        traceback.print_exc(file=sys.stdout)
    await bad_key(url)
    if studio_bin:
        try:
            await over_stdio(studio_bin, url, key, job_id, balance)
        except Exception as e:
            failed.append("stdio: session")
            print(f"FAIL stdio: the session broke: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc(file=sys.stdout)
    if failed:
        print("\nfailed checks:\n  " + "\n  ".join(failed), flush=True)
    print(f"conformance: {len(passed)} passed, {len(failed)} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
