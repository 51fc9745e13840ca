// The outside project compiles the README's polling bot exactly as the repository has it.
def example = new File(basedir, '../../../../framework-telegram/src/test/java/dev/pulsebus/example/PollingBotExample.java')
def target = new File(basedir, 'src/main/java/dev/pulsebus/example/PollingBotExample.java')
target.parentFile.mkdirs()
target.text = example.getText('UTF-8')
return true
