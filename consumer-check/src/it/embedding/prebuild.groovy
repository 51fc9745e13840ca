// The outside project compiles the README's embedding example exactly as the repository has it.
def example = new File(basedir, '../../../../framework-core/src/test/java/dev/pulsebus/example/EmbeddingExample.java')
def target = new File(basedir, 'src/main/java/dev/pulsebus/example/EmbeddingExample.java')
target.parentFile.mkdirs()
target.text = example.getText('UTF-8')
return true
