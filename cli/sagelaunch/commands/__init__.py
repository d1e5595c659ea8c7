"""One module per command. Modules import only the light layers at module level; the sdk, aws and
local layers are imported inside the command functions that need them."""
