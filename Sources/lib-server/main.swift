print("lib-server: not built yet")
