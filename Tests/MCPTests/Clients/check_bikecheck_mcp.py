"""bikecheck mcp under the `mcp` package's own client (PyPI, in .build-tools/venv).

Run by MCPClientTests with BIKECHECK_BIN (the built binary), GARAGE (a copy of the example
garage the server serves), TWIN (a second copy, for `bikecheck done` itself) and AS_OF. Prints
one CHECK line per check passed; any failure raises, and the test sees a non-zero exit.
"""

import asyncio
import json
import os
import pathlib
import subprocess

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BIN = os.environ["BIKECHECK_BIN"]
GARAGE = pathlib.Path(os.environ["GARAGE"])
TWIN = pathlib.Path(os.environ["TWIN"])
AS_OF = os.environ["AS_OF"]
READ_TOOLS = ["status", "validate", "history", "costs", "usage", "rides", "part_list", "part_show", "calendar"]
DONE = {"bike": "grail", "intervals": ["chain-lube", "brake-pads"], "date": AS_OF, "cost": "12.50", "note": "wax and pads"}


def files(root: pathlib.Path) -> dict:
    """Every file of the garage but bikecheck's own state, by path: its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".bikecheck" not in p.relative_to(root).parts and ".git" not in p.relative_to(root).parts
    }


def bikecheck(*args: str, garage: pathlib.Path = GARAGE) -> str:
    done = subprocess.run([BIN, "--garage", str(garage), *args], capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def check(what: str) -> None:
    print("CHECK", what, flush=True)


async def main() -> None:
    server = StdioServerParameters(command=BIN, args=["mcp", "--garage", str(GARAGE), "--as-of", AS_OF], env={"BIKECHECK_GARAGE": ""})
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.protocol_version == "2025-06-18", init.protocol_version
            check("initialize agreed 2025-06-18")

            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert sorted(tools) == sorted(READ_TOOLS + ["done"]), sorted(tools)
            for name in READ_TOOLS:
                a = tools[name].annotations
                assert a is not None and a.read_only_hint is True, (name, a)
                assert tools[name].input_schema["type"] == "object", name
            a = tools["done"].annotations
            assert (a.read_only_hint, a.idempotent_hint, a.destructive_hint) == (False, False, False), a
            check("tools listed with their annotations")

            result = await session.call_tool("status", {})
            expected = json.loads(bikecheck("status", "--format", "json", "--as-of", AS_OF))
            assert not result.is_error, result
            assert result.structured_content == expected, "status differs from bikecheck status --format json"
            assert json.loads(result.content[0].text) == expected
            check("status is bikecheck status --format json")

            for name, args, command in [
                ("costs", {"by": "year"}, ["costs", "--by", "year"]),
                ("history", {"bikes": ["grail"]}, ["history", "grail"]),
                ("part_show", {"part": "race-wheels"}, ["part", "show", "race-wheels"]),
            ]:
                result = await session.call_tool(name, args)
                assert result.structured_content == json.loads(bikecheck(*command, "--format", "json", "--as-of", AS_OF)), name
            check("costs, history and part_show are their commands' JSON")

            resources = await session.list_resources()
            uris = [str(r.uri) for r in resources.resources]
            assert "bikecheck://garage/bikes/grail.yaml" in uris, uris
            read_back = await session.read_resource("bikecheck://garage/bikes/grail.yaml")
            assert read_back.contents[0].text == (GARAGE / "bikes/grail.yaml").read_text(), "resource text"
            check("the garage's files are resources")

            before = files(GARAGE)
            planned = await session.call_tool("done", DONE)
            assert not planned.is_error, planned
            plan = planned.structured_content
            assert files(GARAGE) == before, "a done without confirm changed the garage"
            dry_run = json.loads(bikecheck("done", "grail", "chain-lube", "brake-pads", "--date", AS_OF, "--cost", "12.50", "--note", "wax and pads", "--dry-run", "--format", "json", garage=TWIN))
            assert plan["diff"] == dry_run["diff"] and plan["diff"], (plan["diff"], dry_run["diff"])
            assert plan["confirm"], plan
            check("done without confirm writes nothing and shows done --dry-run's diff")

            bikecheck("done", "grail", "chain-lube", "brake-pads", "--date", AS_OF, "--cost", "12.50", "--note", "wax and pads", garage=TWIN)
            written = await session.call_tool("done", {**DONE, "confirm": plan["confirm"]})
            assert not written.is_error, written
            assert written.structured_content["files"] == ["bikes/grail.yaml"], written.structured_content
            assert (GARAGE / "bikes/grail.yaml").read_bytes() == (TWIN / "bikes/grail.yaml").read_bytes(), "the file is not what bikecheck done writes"
            check("done with its confirm writes what bikecheck done writes")

            again = await session.call_tool("done", {**DONE, "date": "2026-11-01", "intervals": ["chain-lube"], "cost": 3})
            token = again.structured_content["confirm"]
            edited = (GARAGE / "bikes/grail.yaml").read_bytes() + b"# an edit by hand\n"
            (GARAGE / "bikes/grail.yaml").write_bytes(edited)
            stale = await session.call_tool("done", {**DONE, "date": "2026-11-01", "intervals": ["chain-lube"], "cost": 3, "confirm": token})
            assert stale.is_error, stale
            assert "confirm token" in stale.structured_content["error"], stale.structured_content
            assert (GARAGE / "bikes/grail.yaml").read_bytes() == edited, "a stale token wrote"
            check("a stale token is refused and writes nothing")


asyncio.run(main())
