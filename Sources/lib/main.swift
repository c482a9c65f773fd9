import LibCommands

LibProgram.runOnDevice()
