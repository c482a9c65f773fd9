print("lib: not built yet")
