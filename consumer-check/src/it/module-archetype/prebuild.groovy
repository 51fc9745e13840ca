// `./pulsebus new-module dice`, as a user runs it: in a directory of its own, against the installed artifacts
// (the launcher finds them through MAVEN_OPTS's maven.repo.local, so it installs nothing).
def launched = new File(basedir, 'launched')
launched.mkdirs()
def launcher = new File(basedir, '../../../../pulsebus').canonicalPath
def env = System.getenv().findAll { k, v -> k != 'MAVEN_OPTS' }.collect { k, v -> k + '=' + v }
env << ('MAVEN_OPTS=-Dmaven.repo.local=' + localRepositoryPath)
def process = ['bash', launcher, 'new-module', 'dice'].execute(env, launched)
def out = new StringBuffer()
process.consumeProcessOutput(out, out)
assert process.waitFor() == 0 : 'pulsebus new-module dice failed:\n' + out
println out
return true
