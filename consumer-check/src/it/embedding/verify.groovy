// What the README says the example prints, and the server answering as a library without Logback or the cluster's
// engine clients (a clustered configuration is refused saying what to add).
def log = new File(basedir, 'build.log').getText('UTF-8')
['ann says hello', 'nobody handled: a string no one subscribed to', 'stored: hello',
 'no Logback on the class path', 'no cluster engine clients on the class path',
 'cluster.enabled needs com.rabbitmq:amqp-client and io.lettuce:lettuce-core on the class path', 'health 200'].each {
    assert log.contains(it) : "the outside project's output lacks: " + it
}
assert !log.contains('spam now') : 'the interceptor did not stop the spam message'
return true
