// A Telegram bot that polls takes no web server: its dependency tree has no Netty transport or HTTP codec and
// neither the server nor the Netty glue; and docs/EMBEDDING.md's bot answers through the Bot API.
def tree = new File(basedir, 'dependency-tree.txt').getText('UTF-8')
['framework-core', 'framework-storage', 'framework-telegram', 'netty-buffer'].each {
    assert tree.contains(it) : "the dependency tree lacks " + it + ":\n" + tree
}
['framework-http', 'framework-netty', 'netty-codec-http', 'netty-transport', 'netty-handler'].each {
    assert !tree.contains(it) : "a polling bot's dependency tree has " + it + ":\n" + tree
}
def log = new File(basedir, 'build.log').getText('UTF-8')
['no web server on the class path', 'echoed: hi', 'closed in order'].each {
    assert log.contains(it) : "the polling bot's output lacks: " + it
}
return true
