"""bikecheck lsp driven by pytest-lsp (pygls's client, which also checks the server's messages
against the protocol). Run by RealClientTests with BIKECHECK_BIN and BIKECHECK_LSP_GARAGE set:
the garage is a copy of example-garage."""
import os
import pathlib

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

BIN = os.environ["BIKECHECK_BIN"]
GARAGE = pathlib.Path(os.environ["BIKECHECK_LSP_GARAGE"])
TARMAC = GARAGE / "bikes" / "tarmac.yaml"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[BIN, "lsp"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=GARAGE.as_uri(), name="garage")],
        )
    )
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_a_misspelt_template_gets_the_validators_diagnostic_and_completion_offers_the_right_one(client: LanguageClient):
    text = TARMAC.read_text(encoding="utf-8").replace("templates: [road-basics]", "templates: [road-basic]")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=TARMAC.as_uri(), language_id="yaml", version=1, text=text)
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    diagnostics = client.diagnostics[TARMAC.as_uri()]
    assert [d.code for d in diagnostics] == ["unknown-template"]
    line = text.split("\n").index("templates: [road-basic]")
    assert diagnostics[0].range == types.Range(
        start=types.Position(line=line, character=12), end=types.Position(line=line, character=22)
    )
    assert diagnostics[0].severity == types.DiagnosticSeverity.Error

    items = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=TARMAC.as_uri()),
            position=types.Position(line=line, character=22),
        )
    )
    labels = [item.label for item in (items.items if isinstance(items, types.CompletionList) else items)]
    assert labels == ["road-basics"]
