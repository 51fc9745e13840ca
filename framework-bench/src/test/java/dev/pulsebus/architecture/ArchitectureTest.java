package dev.pulsebus.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module and package boundaries, checked on the compiled main classes of all four modules. It runs in
 * framework-bench because that is the one module whose test classpath holds every other module's classes.
 *
 * <p>References are read from each class file's constant pool (class names, descriptors and generic
 * signatures; string literals are left out), so a rule holds for what the bytecode uses, not for what
 * the sources happen to import: an import used only by Javadoc is not a dependency, and neither is a
 * compile-time constant, which javac copies into the user.
 */
class ArchitectureTest {

    private static final Pattern TYPE = Pattern.compile("(?:^|[L(;)\\[<])(dev/pulsebus/(?:[a-z_][a-z0-9_]*/)*)[A-Za-z0-9_$]+");

    /** The modules whose classes are checked (the bench's own are added). */
    private static final List<String> MODULE_NAMES = List.of("framework-core", "framework-storage", "framework-cluster",
            "framework-adapter", "framework-netty", "framework-onebot", "framework-telegram", "framework-example",
            "framework-http");

    /** module -> class name -> packages it references (dev.pulsebus.* only). */
    private static final Map<String, Map<String, Set<String>>> MODULES = new LinkedHashMap<>();

    @BeforeAll
    static void readClasses() throws IOException {
        Map<String, Path> roots = new LinkedHashMap<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path p = Path.of(entry).toAbsolutePath().normalize();
            for (String module : MODULE_NAMES) {
                String file = p.getFileName().toString();
                boolean classes = p.endsWith(Path.of(module, "target", "classes"));
                boolean jar = file.startsWith(module + "-0") && file.endsWith(".jar") && !file.endsWith("-tests.jar");
                if (classes || jar) {
                    roots.put(module, p);
                }
            }
        }
        roots.put("framework-bench", Path.of("target", "classes").toAbsolutePath());
        assertThat(roots.keySet()).containsExactlyInAnyOrderElementsOf(
                Stream.concat(MODULE_NAMES.stream(), Stream.of("framework-bench")).toList());
        for (Map.Entry<String, Path> root : roots.entrySet()) {
            MODULES.put(root.getKey(), read(root.getValue()));
        }
        assertThat(MODULES.values()).allSatisfy(classes -> assertThat(classes).isNotEmpty());
    }

    @Test
    void coreImportsNoOtherModule() {
        assertThat(violations("framework-core", "dev.pulsebus.storage", "dev.pulsebus.cluster", "dev.pulsebus.server",
                "dev.pulsebus.bench"))
                .isEmpty();
    }

    @Test
    void storageImportsNeitherHttpNorBench() {
        assertThat(violations("framework-storage", "dev.pulsebus.cluster", "dev.pulsebus.server", "dev.pulsebus.bench"))
                .isEmpty();
    }

    @Test
    void clusterImportsNeitherStorageNorHttpNorBench() {
        assertThat(violations("framework-cluster", "dev.pulsebus.storage", "dev.pulsebus.server", "dev.pulsebus.onebot",
                "dev.pulsebus.telegram", "dev.pulsebus.bench")).isEmpty();
    }

    @Test
    void httpImportsNoBench() {
        assertThat(violations("framework-http", "dev.pulsebus.bench")).isEmpty();
    }

    @Test
    void noPackageCircleWithinAModule() {
        List<String> circles = new ArrayList<>();
        MODULES.forEach((module, classes) -> {
            Map<String, Set<String>> graph = new TreeMap<>();
            classes.forEach((name, refs) -> {
                String from = packageOf(name);
                Set<String> to = graph.computeIfAbsent(from, k -> new TreeSet<>());
                for (String ref : refs) {
                    if (!ref.equals(from) && owns(classes, ref)) {
                        to.add(ref);
                    }
                }
            });
            for (Set<String> circle : stronglyConnected(graph)) {
                if (circle.size() > 1) {
                    circles.add(module + ": " + circle);
                }
            }
        });
        assertThat(circles).isEmpty();
    }

    /** {@code dev.pulsebus.internal} is for this project's modules, and its examples are written as a module author would. */
    @Test
    void internalIsUsedOnlyByTheProjectsOwnCode() {
        List<String> users = new ArrayList<>();
        MODULES.forEach((module, classes) -> classes.forEach((name, refs) -> {
            String pkg = packageOf(name);
            boolean project = pkg.equals("dev.pulsebus") || pkg.startsWith("dev.pulsebus.");
            boolean example = pkg.equals("example") || pkg.endsWith(".example") || pkg.contains(".example.");
            if (refs.contains("dev.pulsebus.internal") && (!project || example)) {
                users.add(module + ": " + name);
            }
        }));
        assertThat(users).isEmpty();
    }

    private static List<String> violations(String module, String... forbidden) {
        List<String> found = new ArrayList<>();
        MODULES.get(module).forEach((name, refs) -> {
            for (String ref : refs) {
                for (String f : forbidden) {
                    if (ref.equals(f) || ref.startsWith(f + ".")) {
                        found.add(name + " -> " + ref);
                    }
                }
            }
        });
        return found;
    }

    private static boolean owns(Map<String, Set<String>> classes, String pkg) {
        return classes.keySet().stream().anyMatch(c -> packageOf(c).equals(pkg));
    }

    private static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "" : className.substring(0, dot);
    }

    /** Tarjan's strongly connected components. */
    private static List<Set<String>> stronglyConnected(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        List<String> stack = new ArrayList<>();
        Set<String> onStack = new HashSet<>();
        List<Set<String>> out = new ArrayList<>();
        for (String v : graph.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, graph, index, low, stack, onStack, out);
            }
        }
        return out;
    }

    private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index,
            Map<String, Integer> low, List<String> stack, Set<String> onStack, List<Set<String>> out) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.add(v);
        onStack.add(v);
        for (String w : graph.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, graph, index, low, stack, onStack, out);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.remove(stack.size() - 1);
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            out.add(component);
        }
    }

    private static Map<String, Set<String>> read(Path root) throws IOException {
        Map<String, Set<String>> classes = new TreeMap<>();
        if (Files.isDirectory(root)) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : (Iterable<Path>) files.filter(ArchitectureTest::isClass)::iterator) {
                    try (InputStream in = Files.newInputStream(f)) {
                        String name = root.relativize(f).toString().replace(java.io.File.separatorChar, '/');
                        classes.put(className(name), references(in));
                    }
                }
            }
        } else {
            try (JarFile jar = new JarFile(root.toFile())) {
                jar.stream().filter(e -> isClass(Path.of(e.getName()))).forEach(e -> {
                    try (InputStream in = jar.getInputStream(e)) {
                        classes.put(className(e.getName()), references(in));
                    } catch (IOException x) {
                        throw new UncheckedIOException(x);
                    }
                });
            }
        }
        return classes;
    }

    private static boolean isClass(Path p) {
        String n = p.getFileName().toString();
        return n.endsWith(".class") && !n.equals("module-info.class") && !n.equals("package-info.class")
                && !p.toString().replace('\\', '/').contains("META-INF/");
    }

    private static String className(String path) {
        return path.substring(0, path.length() - ".class".length()).replace('/', '.');
    }

    /** The dev.pulsebus packages a class file refers to, from its constant pool minus string literals. */
    static Set<String> references(InputStream stream) throws IOException {
        DataInputStream in = new DataInputStream(stream);
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        Set<Integer> literals = new HashSet<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = in.readUTF();
                case 8 -> literals.add(in.readUnsignedShort()); // CONSTANT_String
                case 7, 16, 19, 20 -> in.readUnsignedShort(); // Class, MethodType, Module, Package
                case 15 -> in.skipBytes(3); // MethodHandle
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
                case 5, 6 -> {
                    in.readLong();
                    i++; // a long or double takes two slots
                }
                default -> throw new IOException("constant pool tag " + tag);
            }
        }
        Set<String> packages = new TreeSet<>();
        for (int i = 1; i < count; i++) {
            if (utf8[i] != null && !literals.contains(i)) {
                Matcher m = TYPE.matcher(utf8[i]);
                while (m.find()) {
                    String pkg = m.group(1);
                    packages.add(pkg.substring(0, pkg.length() - 1).replace('/', '.'));
                }
            }
        }
        return packages;
    }
}
