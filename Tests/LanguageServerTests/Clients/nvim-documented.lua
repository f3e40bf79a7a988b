-- Run after the Neovim set-up docs/editor.md shows, taken from the page as it is (RealClientTests):
--   nvim --headless --clean -u SETUP.lua -c "luafile nvim-documented.lua" FILE
-- The set-up has started bikecheck for FILE; this waits for its diagnostics, asks for a
-- completion at BIKECHECK_COMPLETE_AT ("line:character", 0-based), prints one line for each
-- ("DIAGNOSTIC line:col code message", "COMPLETION label", "CLIENT name"), stops the clients
-- and quits. It uses only what Neovim 0.7 to 0.11 all have.
local ok = vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50)
for _, d in ipairs(vim.diagnostic.get(0)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or "?"
  io.stdout:write(string.format("DIAGNOSTIC %d:%d %s %s\n", d.lnum, d.col, code, (d.message:gsub("\n.*", ""))))
end
if not ok then io.stdout:write("TIMEOUT\n") end
local line, character = (os.getenv("BIKECHECK_COMPLETE_AT") or "0:0"):match("(%d+):(%d+)")
local params = { textDocument = { uri = vim.uri_from_bufnr(0) }, position = { line = tonumber(line), character = tonumber(character) } }
local responses = vim.lsp.buf_request_sync(0, "textDocument/completion", params, 10000) or {}
for _, response in pairs(responses) do
  local items = response.result and (response.result.items or response.result) or {}
  for _, item in ipairs(items) do io.stdout:write("COMPLETION " .. item.label .. "\n") end
end
local clients = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
for _, client in ipairs(clients) do
  io.stdout:write("CLIENT " .. client.name .. "\n")
  vim.lsp.stop_client(client.id)
end
vim.wait(5000, function()
  return #(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) == 0
end, 50)
vim.cmd(ok and "qall!" or "cquit 2")
