int csecret_placeholder(void);
