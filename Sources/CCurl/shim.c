int ccurl_placeholder(void) { return 0; }
