// placeholder: the network issue fills this in.
int ccurl_placeholder(void);
