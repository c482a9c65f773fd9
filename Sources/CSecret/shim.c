int csecret_placeholder(void) { return 0; }
