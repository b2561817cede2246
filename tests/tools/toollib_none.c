/* A library that is no tool: it exports neither OnLoadToolProp nor
 * OnLoadTool. cltap must say so in one line and run on. */
int toollib_none_answer(void) { return 42; }
