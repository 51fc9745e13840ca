// The generated project has what the archetype promises, its own test ran, and its jar answered in a server.
def dice = new File(basedir, 'generated/dice')
['pom.xml', 'README.md', 'src/main/java/com/example/dice/DiceModule.java',
 'src/test/java/com/example/dice/DiceModuleTest.java',
 'src/main/resources/META-INF/services/dev.pulsebus.module.BotModule', 'target/dice-1.0-SNAPSHOT.jar'].each {
    assert new File(dice, it).isFile() : 'the generated project lacks ' + it
}
assert !new File(dice, 'pom.xml').text.contains('<parent>') : 'the generated project got a parent'
// ./pulsebus new-module made the same project as mvn archetype:generate
def launched = new File(basedir, 'launched/dice')
def sources = { File root -> def files = [:]
    root.eachFileRecurse(groovy.io.FileType.FILES) {
        def path = root.toPath().relativize(it.toPath()).toString()
        if (!path.startsWith('target')) files[path] = it.getText('UTF-8')
    }
    files
}
assert !sources(launched).isEmpty() : 'pulsebus new-module made nothing'
assert sources(launched) == sources(dice) : 'pulsebus new-module made another project than archetype:generate'
def log = new File(basedir, 'build.log').getText('UTF-8')
assert log.contains('Tests run: 2, Failures: 0, Errors: 0') : "the generated module's own test did not run"
assert log.contains('the dice module answered from modules/') : 'the server did not answer with the module'
return true
