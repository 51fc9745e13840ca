package dev.pulsebus.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Builds a module jar at run time: Java sources compiled against this JVM's class path, packed with the
 * {@code META-INF/services} entry that names the module class. For hot-reload tests and the module
 * benchmark (shared through the core test jar).
 */
public final class ModuleJars {

    private ModuleJars() {
    }

    /**
     * @param sources file name (e.g. {@code "HotModule.java"}) and text, alternating, all in package {@code pkg}
     * @return the jar, {@code dir/<jarName>.jar}
     */
    public static Path build(Path dir, String jarName, String pkg, String moduleClass, String... sources)
            throws IOException {
        return build(dir, jarName, pkg, List.of(moduleClass), sources);
    }

    /** The same, for a jar listing several module classes. */
    public static Path build(Path dir, String jarName, String pkg, List<String> moduleClasses, String... sources)
            throws IOException {
        Path src = Files.createDirectories(dir.resolve("src-" + jarName).resolve(pkg.replace('.', '/')));
        for (int i = 0; i < sources.length; i += 2) {
            Files.writeString(src.resolve(sources[i]), sources[i + 1]);
        }
        Path classes = Files.createDirectories(dir.resolve("classes-" + jarName));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "-cp",
                System.getProperty("java.class.path"), "--release", "21", "-proc:none"));
        try (Stream<Path> files = Files.list(src)) {
            files.forEach(f -> args.add(f.toString()));
        }
        if (javac.run(null, null, null, args.toArray(String[]::new)) != 0) {
            throw new IOException("javac failed for " + jarName + " (see stderr)");
        }
        Path jar = dir.resolve(jarName + ".jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                out.write(Files.readAllBytes(f));
            }
            out.putNextEntry(new JarEntry("META-INF/services/dev.pulsebus.module.BotModule"));
            for (String moduleClass : moduleClasses) {
                out.write((pkg + "." + moduleClass + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        return jar;
    }
}
