-- Headless Neovim as a real LSP client of `bikecheck lsp`. Run by RealClientTests:
--   BIKECHECK_BIN=... nvim --headless --clean -u nvim-diagnostics.lua FILE
-- Starts the server for the buffer, waits for its diagnostics, then prints one line per
-- diagnostic ("DIAGNOSTIC line:col code message") and quits. Neovim 0.7 has vim.lsp.start_client
-- (vim.lsp.start came in 0.8), so this uses what both have.
local bin = os.getenv("BIKECHECK_BIN")
local file = vim.api.nvim_buf_get_name(0)
local root = vim.fn.fnamemodify(file, ":h:h")
local client = vim.lsp.start_client({ name = "bikecheck", cmd = { bin, "lsp" }, root_dir = root })
if not client then
  io.stdout:write("NO CLIENT\n")
  vim.cmd("cquit 3")
end
vim.lsp.buf_attach_client(0, client)
local ok = vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50)
for _, d in ipairs(vim.diagnostic.get(0)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or "?"
  io.stdout:write(string.format("DIAGNOSTIC %d:%d %s %s\n", d.lnum, d.col, code, (d.message:gsub("\n.*", ""))))
end
if not ok then io.stdout:write("TIMEOUT\n") end
vim.lsp.stop_client(client)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client) == nil end, 50)
vim.cmd(ok and "qall!" or "cquit 2")
