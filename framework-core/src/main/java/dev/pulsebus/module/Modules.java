package dev.pulsebus.module;

import java.io.IOException;
import java.net.URLClassLoader;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Finding modules and putting them in load order. */
public final class Modules {

    private static final Logger LOG = LoggerFactory.getLogger(Modules.class);
    /** The folder of the modules folder where {@link #setAside} puts the jars a reload replaced. */
    public static final String REPLACED = ".replaced";
    /** How many {@code name~n.jar} {@link #setAside} tries when the name is taken in {@link #REPLACED}. */
    private static final int MAX_SUFFIX = 1000;

    private Modules() {
    }

    /** The modules listed for {@link ServiceLoader} on {@code classpath}, in the order found. */
    public static List<BotModule> onClasspath(ClassLoader classpath) {
        List<BotModule> found = new ArrayList<>();
        ServiceLoader.load(BotModule.class, classpath).forEach(found::add);
        return found;
    }

    /** The jars in {@code folder}, sorted by name, for {@link ModuleHost#load(Path)}; none when it is absent. */
    public static List<Path> jars(Path folder) {
        if (folder == null || !Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".jar") && Files.isRegularFile(p))
                    .sorted().toList();
        } catch (IOException e) {
            throw new ModuleException("cannot list module folder " + folder + ": " + e.getMessage(), e);
        }
    }

    /**
     * The {@linkplain #jars jars} of {@code folder} to load at start, in name order: of the jars carrying the
     * same module, only the one with its highest {@linkplain BotModule#version() version} (as Maven orders
     * versions: {@code 1.10 > 1.9 > 1.9-SNAPSHOT}); at equal versions the newest file, then the last by name.
     * A jar is left out (superseded) when every module it carries is carried at a higher version by a jar that
     * loads; a jar whose modules cannot be read is kept, so that its load reports why. Jars are read in a
     * throwaway class loader (their modules are constructed, never loaded). {@code log}: say at INFO which jars
     * are left out and why, once each.
     */
    public static List<Path> newestJars(Path folder, boolean log) {
        List<Jar> jars = jars(folder).stream().map(p -> new Jar(p, carried(p))).toList();
        Map<String, Jar> newest = new LinkedHashMap<>(); // module name -> the jar with its highest version
        for (Jar jar : jars) {
            jar.modules.forEach((name, version) -> newest.merge(name, jar, (held, other) -> {
                String heldVersion = held.version(name);
                Jar pick = newer(held.file, heldVersion, other.file, version) >= 0 ? held : other;
                if (log && VersionOrder.INSTANCE.compare(heldVersion, version) == 0) {
                    LOG.info("Module {} {} is in both {} and {}; {} is taken (the newer file, or the later name)",
                            name, version, held.name(), other.name(), pick.name());
                }
                return pick;
            }));
        }
        List<Path> load = new ArrayList<>();
        for (Jar jar : jars) {
            if (jar.modules.isEmpty() || jar.modules.keySet().stream().anyMatch(name -> jar.equals(newest.get(name)))) {
                load.add(jar.file);
            } else if (log) {
                List<String> by = jar.modules.keySet().stream().map(name -> {
                    Jar other = Objects.requireNonNull(newest.get(name), name);
                    return name + " " + other.version(name) + " in " + other.name();
                }).toList();
                LOG.info("Module jar {} is superseded and not loaded: {} has {}", jar.name(), folder,
                        String.join(", ", by));
            }
        }
        return load;
    }

    /** A jar of the modules folder, and the modules it carries (name to version). */
    private record Jar(Path file, Map<String, String> modules) {
        String version(String module) {
            return Objects.requireNonNull(modules.get(module), module);
        }

        String name() {
            return String.valueOf(file.getFileName());
        }
    }

    /** Above 0 when {@code a} carries a module at {@code va} newer than {@code b} at {@code vb}; 0 only for the same jar. */
    private static int newer(Path a, String va, Path b, String vb) {
        int c = VersionOrder.INSTANCE.compare(va, vb);
        if (c != 0) {
            return c;
        }
        c = modified(a).compareTo(modified(b));
        return c != 0 ? c : a.compareTo(b);
    }

    private static FileTime modified(Path file) {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }

    /**
     * The modules {@code jar} lists (name to version), read in a class loader that is closed again: their
     * constructors run, {@code onLoad} does not. Empty when the jar cannot be read.
     */
    static Map<String, String> carried(Path jar) {
        Map<String, String> modules = new LinkedHashMap<>();
        try (URLClassLoader loader = ModuleHost.loaderFor(jar)) {
            for (BotModule m : ServiceLoader.load(BotModule.class, loader)) {
                if (m.getClass().getClassLoader() == loader) {
                    modules.put(m.name(), m.version());
                }
            }
        } catch (IOException | ServiceConfigurationError | LinkageError | RuntimeException e) {
            LOG.debug("Cannot read the modules of {}: {}", jar, e.toString());
            return Map.of();
        }
        return modules;
    }

    /**
     * Moves {@code jar}, which a reload replaced, to {@code .replaced/} of its folder (made when missing), so
     * that the next start does not load it; a name taken there gets a suffix ({@code dice-1.0~2.jar}). Nothing
     * is deleted.
     *
     * @return where it went
     * @throws IOException when it cannot be moved (a read-only folder)
     */
    public static Path setAside(Path jar) throws IOException {
        Path folder = Objects.requireNonNull(jar.toAbsolutePath().getParent(), "a jar is in a folder");
        Path dir = Files.createDirectories(folder.resolve(REPLACED));
        String file = jar.getFileName().toString();
        String stem = file.endsWith(".jar") ? file.substring(0, file.length() - 4) : file;
        Path target = dir.resolve(file);
        for (int n = 2; ; n++) {
            try {
                return Files.move(jar, target);
            } catch (FileAlreadyExistsException taken) {
                if (n > MAX_SUFFIX) {
                    throw taken;
                }
                target = dir.resolve(stem + "~" + n + ".jar");
            }
        }
    }

    /**
     * {@code modules} in an order where every module comes after its dependencies (otherwise in the given
     * order).
     *
     * @throws ModuleException naming a duplicate, a missing dependency, or the modules of a cycle
     */
    public static List<BotModule> inLoadOrder(List<BotModule> modules) {
        Map<String, BotModule> byName = new LinkedHashMap<>();
        for (BotModule m : modules) {
            if (byName.putIfAbsent(m.name(), m) != null) {
                throw new ModuleException("two modules are named '" + m.name() + "': "
                        + byName.get(m.name()).getClass().getName() + " and " + m.getClass().getName());
            }
        }
        for (BotModule m : modules) {
            for (String dep : m.dependencies()) {
                if (!byName.containsKey(dep)) {
                    throw new ModuleException("module '" + m.name() + "' needs '" + dep + "', which is not present");
                }
            }
        }
        List<BotModule> order = new ArrayList<>();
        Map<String, Boolean> state = new LinkedHashMap<>(); // false: visiting, true: done
        for (BotModule m : modules) {
            visit(m, byName, state, order, new ArrayList<>());
        }
        return order;
    }

    private static void visit(BotModule m, Map<String, BotModule> byName, Map<String, Boolean> state,
                              List<BotModule> order, List<String> path) {
        Boolean s = state.get(m.name());
        if (Boolean.TRUE.equals(s)) {
            return;
        }
        path.add(m.name());
        if (Boolean.FALSE.equals(s)) {
            List<String> cycle = path.subList(path.indexOf(m.name()), path.size());
            throw new ModuleException("modules depend on each other in a cycle: " + String.join(" -> ", cycle));
        }
        state.put(m.name(), false);
        for (String dep : m.dependencies()) {
            visit(Objects.requireNonNull(byName.get(dep), dep), byName, state, order, path); // checked present above
        }
        state.put(m.name(), true);
        order.add(m);
        path.remove(path.size() - 1);
    }
}
