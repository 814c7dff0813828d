/**
 * A consumer of ysuite on the module path: it declares nothing but {@code requires org.ysuite;},
 * exactly as the README tells a modular application to.
 */
module org.ysuite.moduletest {
    requires org.ysuite;

    exports org.ysuite.moduletest;
}
