import LibCommands

LibProgram.runOnline()
